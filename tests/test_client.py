"""`make_client()` decides the backend; everything else in the course is one code path."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import anthropic
import httpx2
import pytest

from course_helpers import client as client_module
from course_helpers.client import DEFAULT_MODEL, Backend, banner, detect_backend
from course_helpers.offline import CourseModelApp
from course_helpers.offline.serve import start_server
from course_helpers.offline.validation import KNOWN_MODELS

KEY = "sk-ant-learner-key"
URL = "http://127.0.0.1:11434"


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, Backend("offline", None)),
        ({"ANTHROPIC_API_KEY": KEY}, Backend("live", None)),
        ({"ANTHROPIC_AUTH_TOKEN": "token"}, Backend("live", None)),
        ({"ANTHROPIC_BASE_URL": URL}, Backend("compatible", URL)),
        ({"ANTHROPIC_BASE_URL": URL, "ANTHROPIC_API_KEY": KEY}, Backend("compatible", URL)),
        ({"COURSE_BACKEND": "offline", "ANTHROPIC_API_KEY": KEY}, Backend("offline", None)),
        ({"COURSE_BACKEND": "offline", "ANTHROPIC_BASE_URL": URL}, Backend("offline", None)),
        ({"COURSE_BACKEND": "live"}, Backend("live", None)),
        ({"COURSE_BACKEND": " Live "}, Backend("live", None)),
        ({"ANTHROPIC_API_KEY": ""}, Backend("offline", None)),
    ],
)
def test_backend_rules(environ, expected):
    assert detect_backend(environ) == expected


def test_an_unknown_backend_is_a_clear_error():
    with pytest.raises(ValueError, match="COURSE_BACKEND must be 'offline' or 'live'"):
        detect_backend({"COURSE_BACKEND": "claude"})


def test_banner_names_backend_and_model():
    assert banner(Backend("offline", None), "m") == (
        "Backend: offline course model (no API key needed, token counts are estimates) · model: m"
    )
    assert "compatible server at http://x" in banner(Backend("compatible", "http://x"), "m")
    assert "billed" in banner(Backend("live", None), "m")


def test_model_has_one_default_and_course_model_overrides_it():
    read = "from course_helpers import MODEL; print(MODEL)"
    # Two fresh interpreters, started together: each import reads the environment it has.
    default, chosen = (
        subprocess.Popen(
            [sys.executable, "-c", read], stdout=subprocess.PIPE, text=True, env=environment
        )
        for environment in ({}, {"COURSE_MODEL": "claude-haiku-5-5"})
    )
    outputs = [process.communicate(timeout=120)[0] for process in (default, chosen)]
    assert default.returncode == chosen.returncode == 0
    assert outputs[0].strip() == DEFAULT_MODEL == "claude-sonnet-5-5"
    assert outputs[1].strip() == "claude-haiku-5-5"
    assert DEFAULT_MODEL in KNOWN_MODELS  # a model id the SDK knows, not a misspelt one


def _clear(monkeypatch):
    for name in (
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_BASE_URL",
        "COURSE_BACKEND",
    ):
        monkeypatch.delenv(name, raising=False)


def test_offline_client_never_sends_a_real_key(monkeypatch, capsys):
    _clear(monkeypatch)
    monkeypatch.setenv("COURSE_BACKEND", "offline")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    seen = []
    app = CourseModelApp()

    def recording(request: httpx2.Request) -> httpx2.Response:
        seen.append(request.headers.get("authorization"))
        return app.handle(request)

    monkeypatch.setattr(client_module, "detect_backend", lambda: Backend("offline", None))
    offline = client_module.make_client(
        http_client=httpx2.Client(transport=httpx2.MockTransport(recording))
    )
    offline.messages.create(
        model=DEFAULT_MODEL, max_tokens=50, messages=[{"role": "user", "content": "Hello"}]
    )
    assert "offline course model" in capsys.readouterr().out
    assert seen and KEY not in seen[0]


def test_async_twin_works_offline(monkeypatch):
    _clear(monkeypatch)
    async_client = client_module.make_async_client(quiet=True)
    assert isinstance(async_client, anthropic.AsyncAnthropic)

    async def ask():
        return await async_client.messages.create(
            model=DEFAULT_MODEL, max_tokens=50, messages=[{"role": "user", "content": "Hello"}]
        )

    assert asyncio.run(ask()).stop_reason == "end_turn"


@pytest.fixture
def loopback():
    """The course model on 127.0.0.1, recording the credentials each request carries."""
    app = CourseModelApp()
    keys: list[str] = []
    dispatch = app.dispatch

    def recording(method, path, headers, body):
        keys.append({k.lower(): v for k, v in headers.items()}.get("authorization", ""))
        return dispatch(method, path, headers, body)

    app.dispatch = recording  # type: ignore[method-assign]
    with start_server(app=app) as server:
        yield server.url, keys


def test_live_mode_sends_the_learners_key(monkeypatch, loopback, capsys):
    """Live mode is the SDK's own defaults plus the learner's key; the loopback server stands
    in for the API's address so the test needs no network."""
    url, keys = loopback
    _clear(monkeypatch)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    live = client_module.make_client(base_url=url, max_retries=0)
    assert "live Anthropic API" in capsys.readouterr().out
    reply = live.messages.create(
        model=DEFAULT_MODEL, max_tokens=50, messages=[{"role": "user", "content": "Hello"}]
    )
    assert reply.stop_reason == "end_turn"
    assert keys == [f"Bearer {KEY}"]


def test_compatible_mode_works_without_a_key(monkeypatch, loopback, capsys):
    url, keys = loopback
    _clear(monkeypatch)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    compatible = client_module.make_client(max_retries=0)
    assert f"compatible server at {url}" in capsys.readouterr().out
    compatible.messages.create(
        model=DEFAULT_MODEL, max_tokens=50, messages=[{"role": "user", "content": "Hello"}]
    )
    assert keys == ["Bearer not-needed"]


@pytest.mark.parametrize("model", ["claude-sonnet-5-5", "claude-opus-5-5", "claude-haiku-5-5"])
def test_models_retrieve_works_offline_for_the_current_models(monkeypatch, model):
    _clear(monkeypatch)
    client = client_module.make_client(quiet=True, _strict_response_validation=True)
    info = client.models.retrieve(model)
    assert info.id == model and info.max_input_tokens == 1_000_000
    assert info.capabilities is not None and info.capabilities.thinking.types.adaptive.supported
    assert model in {m.id for m in client.models.list()}
