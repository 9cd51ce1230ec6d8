"""Run real clients of the Messages API against the offline course model over HTTP, and record
every request and answer.

Run it with the project's Python; the clients live in their own environments (see README.md):

    python benchmarks/real_clients/run.py --python /tmp/clients/venv/bin/python \
        --node /tmp/clients/node --out /tmp/clients/log

It serves the course model on a free loopback port, runs `clients.py` with the clients'
Python and `clients.mjs` with Node (each check prints one JSON line), and writes:

- `requests.jsonl`: every request that reached the course model (method, path, body) with the
  status it got and, for a JSON answer, the answer;
- `results.md`: one table row per client and check, with the requests it made and their
  statuses, and the totals the brief counts (5xx, valid requests refused, loops).

It is not part of the test suite: it needs the clients installed, which the suite never does.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
from collections import defaultdict
from pathlib import Path

from course_helpers.offline import CourseModel, CourseModelApp
from course_helpers.offline.app import HttpReply
from course_helpers.offline.serve import start_server

HERE = Path(__file__).resolve().parent
LOOP = 8  # more requests than this for one check counts as a loop


class RecordingApp(CourseModelApp):
    """The course model, recording each request with the client and check it belongs to (the
    `x-check` header the client scripts send)."""

    def __init__(self, log: Path) -> None:
        super().__init__(CourseModel())
        self.log = log.open("w")
        self.lock = threading.Lock()
        self.by_check: dict[str, list[int]] = defaultdict(list)

    def dispatch(self, method: str, path: str, headers: dict[str, str], body: bytes) -> HttpReply:
        reply = super().dispatch(method, path, headers, body)
        check = next((v for k, v in headers.items() if k.lower() == "x-check"), "?")
        try:
            sent = json.loads(body) if body else None
        except ValueError:
            sent = body.decode("utf-8", "replace")
        answer = None
        if reply.stream is None:
            try:
                answer = json.loads(reply.body) if reply.body else None
            except ValueError:
                answer = None
        else:
            chunks: list[bytes] = []
            original = reply.stream

            def collecting():
                for chunk in original:
                    chunks.append(chunk)
                    yield chunk
                self._write(check, method, path, sent, reply.status, b"".join(chunks).decode())

            reply.stream = collecting()
        with self.lock:
            self.by_check[check].append(reply.status)
        if reply.stream is None:
            self._write(check, method, path, sent, reply.status, answer)
        return reply

    def _write(self, check, method, path, sent, status, answer) -> None:
        line = {"check": check, "method": method, "path": path, "status": status}
        line |= {"body": sent, "answer": answer}
        with self.lock:
            self.log.write(json.dumps(line) + "\n")
            self.log.flush()


def run_script(command: list[str], env: dict, timeout: int) -> list[dict]:
    """Run one client script; each line it prints is one check's result."""
    try:
        done = subprocess.run(
            command, env=env, capture_output=True, text=True, timeout=timeout, check=False
        )
        output, errors = done.stdout, done.stderr
    except subprocess.TimeoutExpired as stopped:
        output = (stopped.stdout or b"").decode() if isinstance(stopped.stdout, bytes) else ""
        errors = f"timed out after {timeout} s"
    results = []
    for line in output.splitlines():
        if line.startswith("{"):
            try:
                results.append(json.loads(line))
            except ValueError:
                pass
    if not results:
        results.append({"client": command[-1], "check": "run", "ok": False, "note": errors[-400:]})
    return results


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--python", help="a Python with the Python clients installed")
    parser.add_argument(
        "--python-for",
        action="append",
        default=[],
        metavar="NAME=PYTHON",
        help="run the checks of the client NAME with another Python (one whose pins suit it)",
    )
    parser.add_argument("--node", help="a folder with the Node clients in node_modules")
    parser.add_argument("--out", default="real_clients_log", help="folder for the logs")
    parser.add_argument("--only", default="", help="run only the clients whose name has this")
    parser.add_argument("--timeout", type=int, default=600)
    parser.add_argument(
        "--model",
        default="claude-haiku-5-5",
        help="model id (claude-sonnet-5-5 refuses forced tools)",
    )
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    app = RecordingApp(out / "requests.jsonl")
    server = start_server(app=app)
    url = server.url
    env = {**os.environ, "ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "sk-offline"}
    env["COURSE_MODEL_URL"], env["ONLY"], env["CLIENT_MODEL"] = url, args.only, args.model
    results: list[dict] = []
    try:
        others = dict(pair.split("=", 1) for pair in args.python_for)
        if args.python:
            main_env = {**env, "SKIP": ",".join(others)}
            results += run_script([args.python, str(HERE / "clients.py")], main_env, args.timeout)
        for name, python in others.items():
            if not args.only or args.only in name:
                one = {**env, "ONLY": name}
                results += run_script([python, str(HERE / "clients.py")], one, args.timeout)
        if args.node:
            node_env = {**env, "NODE_PATH": str(Path(args.node) / "node_modules")}
            script = Path(args.node) / "clients.mjs"
            script.write_text((HERE / "clients.mjs").read_text())  # resolves the node_modules
            results += run_script(["node", str(script)], node_env, args.timeout)
        if not args.only or args.only in "curl":
            results += curl_checks(url, args.model)
    finally:
        server.stop()
    statuses = app.by_check
    rows = ["| client | check | ok | requests (statuses) | note |", "|---|---|---|---|---|"]
    fives = refused = loops = 0
    for r in results:
        key = f"{r['client']}:{r['check']}"
        seen = statuses.get(key, [])
        fives += sum(1 for s in seen if s >= 500)
        refused += sum(1 for s in seen if 400 <= s < 500 and not r.get("expect_error"))
        counts = ", ".join(f"{s}×{seen.count(s)}" for s in sorted(set(seen))) or "-"
        looped = len(seen) > LOOP
        mark = "yes" if r["ok"] and not looped else "NO"
        if r.get("expect_error") and not looped:
            mark = "refused, as the API refuses it"
        loops += looped
        rows.append(
            f"| {r['client']} | {r['check']} | {mark} | {len(seen)} ({counts}) | "
            f"{' '.join(str(r.get('note', '')).replace('|', '/').split())[:120]} |"
        )
    passed = sum(
        1
        for r in results
        if r["ok"] and len(statuses.get(f"{r['client']}:{r['check']}", [])) <= LOOP
    )
    rows.append("")
    rows.append(
        f"{passed} of {len(results)} checks usable; 5xx answers: {fives}; "
        f"4xx answers to requests not meant to fail: {refused}; checks over {LOOP} requests: {loops}."
    )
    (out / "results.md").write_text("\n".join(rows) + "\n")
    print("\n".join(rows))


def curl_checks(url: str, model: str) -> list[dict]:
    """curl: a plain question, a tool with a `name` property, a stream."""
    headers = [
        "-H",
        "x-api-key: k",
        "-H",
        "anthropic-version: 2023-06-01",
        "-H",
        "content-type: application/json",
    ]
    base = {"model": model, "max_tokens": 300}
    bodies = {
        "plain": {**base, "messages": [{"role": "user", "content": "What is 2+2?"}]},
        "tool_name": {
            **base,
            "tools": [
                {
                    "name": "add_contact",
                    "description": "Add a contact.",
                    "input_schema": {
                        "type": "object",
                        "properties": {"name": {"type": "string"}, "email": {"type": "string"}},
                        "required": ["name", "email"],
                    },
                }
            ],
            "tool_choice": {"type": "tool", "name": "add_contact"},
            "messages": [{"role": "user", "content": "Add Ada Lovelace, ada@example.com."}],
        },
        "stream": {
            **base,
            "stream": True,
            "messages": [{"role": "user", "content": "Say hello in one short sentence."}],
        },
    }
    results = []
    for check, sent in bodies.items():
        done = subprocess.run(
            [
                "curl",
                "-sS",
                "-N",
                f"{url}/v1/messages",
                *headers,
                "-H",
                f"x-check: curl:{check}",
                "-d",
                json.dumps(sent),
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        said = done.stdout
        if check == "plain":
            ok = '"4' in said or " 4" in said
        elif check == "tool_name":
            ok = '"name":"Ada Lovelace"' in said.replace(": ", ":")
        else:
            ok = "message_stop" in said and "text_delta" in said
        results.append({"client": "curl", "check": check, "ok": ok, "note": said[-120:]})
    return results


if __name__ == "__main__":
    sys.exit(main())
