"""Course machinery (offline course model): its command line.

`python -m course_helpers.offline serve [--port N] [--variant] [--reluctant]`
"""

from __future__ import annotations

import argparse

from course_helpers.offline.serve import serve


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m course_helpers.offline")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("serve", help="serve the offline course model over HTTP")
    run.add_argument("--host", default="127.0.0.1", help="address to listen on (loopback)")
    run.add_argument("--port", type=int, default=8765, help="port (0 picks a free one)")
    run.add_argument(
        "--variant",
        action="store_true",
        help="behave unlike the course model (extra text, double checks), to test robustness",
    )
    run.add_argument(
        "--reluctant",
        action="store_true",
        help="never call a tool unless tool_choice forces one: answer in words instead",
    )
    run.add_argument("--verbose", action="store_true", help="log every request")
    args = parser.parse_args(argv)
    serve(
        args.host, args.port, variant=args.variant, verbose=args.verbose, reluctant=args.reluctant
    )


if __name__ == "__main__":
    main()
