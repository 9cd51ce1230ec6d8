"""The reference loop (course_helpers.loop) against the course model, history checked every turn.

Every test builds its SDK client over a fresh `CourseModelApp`, so no state (faults, prompt
cache) leaks between tests. `check_pairing` runs after every turn through `on_turn`.
"""

from __future__ import annotations

import anthropic
import pytest

from course_helpers.fixtures.pr_repo import build_pr_repo
from course_helpers.loop import AgentRun, compact_history, run_agent, run_tools
from course_helpers.offline import CourseModelApp
from course_helpers.pairing import check_pairing
from course_helpers.tools import Tool, tool
from course_helpers.widgets import LoopStepper

WEB_SEARCH = {"type": "web_search_20260318", "name": "web_search"}


@pytest.fixture
def app() -> CourseModelApp:
    return CourseModelApp()


@pytest.fixture
def client(app: CourseModelApp):
    client = app.client(_strict_response_validation=True, max_retries=0)
    yield client
    client.close()


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory):
    return build_pr_repo(tmp_path_factory.mktemp("pr") / "repo")


@pytest.fixture(scope="module")
def tools(repo) -> dict[str, Tool]:
    @tool
    def get_diff(pr: int) -> str:
        """Return the unified diff of pull request `pr`."""
        return repo.get_diff(pr)

    @tool
    def read_file(path: str) -> str:
        """Read a file of the repository, by path relative to its root."""
        return repo.read_file(path)

    @tool
    def list_files() -> list[str]:
        """Every file path in the repository."""
        return repo.list_files()

    return {t.name: t for t in (get_diff, read_file, list_files)}


def checked(run: AgentRun) -> None:
    """on_turn: the history must be valid after every single turn."""
    assert check_pairing(run.messages) == [], check_pairing(run.messages)


def ask(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


def calls_made(messages: list) -> list[str]:
    return [
        block.name
        for message in messages
        if message["role"] == "assistant" and not isinstance(message["content"], str)
        for block in message["content"]
        if getattr(block, "type", None) == "tool_use"
    ]


def test_pr_review_end_to_end(client, tools) -> None:
    messages = ask("Review PR #482.")
    run = run_agent(
        client, messages=messages, tools=[tools["get_diff"], tools["read_file"]], on_turn=checked
    )
    assert run.ending == "end_turn"
    assert run.steps == 3 and len(messages) == 6
    assert calls_made(messages) == ["get_diff", "read_file"]
    assert messages[3]["content"][-1].input == {"path": "invoicing/checkout.py"}
    assert "customer.discount_percent" in run.final_text
    assert len(run.usage) == 3 and run.input_tokens > 0


def test_missing_pr_is_reported_honestly(client, tools) -> None:
    messages = ask("Review PR #999.")
    run = run_agent(client, messages=messages, tools=tools, on_turn=checked)
    assert run.ending == "end_turn"
    assert messages[2]["content"][0]["is_error"] is True
    assert "does not exist" in run.final_text and "#482 and #483" in run.final_text


def test_wrong_path_recovers_through_list_files(client, tools) -> None:
    messages = ask("Review PR #482. The code that calls the changed function is in checkout.py.")
    run = run_agent(client, messages=messages, tools=tools, on_turn=checked)
    assert run.ending == "end_turn"
    assert calls_made(messages) == ["get_diff", "read_file", "list_files", "read_file"]
    assert "customer.discount_percent" in run.final_text


def test_step_limit_is_respected(client, tools) -> None:
    messages = ask("Review PR #482.")
    run = run_agent(client, messages=messages, tools=tools, max_steps=2, on_turn=checked)
    assert run.ending == "step_limit" and run.steps == 2
    assert len(messages) == 5  # two full turns, and the history ends with results
    assert check_pairing(messages) == []
    again = run_agent(client, messages=messages, tools=tools, on_turn=checked)
    assert again.ending == "end_turn" and again.steps == 1  # it resumes where it stopped


def test_budget_limit_ends_between_turns(client, tools) -> None:
    messages = ask("Review PR #482.")
    run = run_agent(client, messages=messages, tools=tools, max_total_tokens=100)
    assert run.ending == "budget_limit" and run.steps == 1
    assert check_pairing(messages) == []


def test_budget_callback_ends_between_turns_with_its_reason(client, tools) -> None:
    seen = []

    def two_calls(run: AgentRun) -> str | None:
        seen.append(run.steps)
        return "two calls is enough" if run.steps >= 2 else None

    messages = ask("Review PR #482.")
    run = run_agent(client, messages=messages, tools=tools, budget=two_calls, on_turn=checked)
    assert (run.ending, run.detail, run.steps) == ("budget_limit", "two calls is enough", 2)
    assert seen == [0, 1, 2]  # asked before every call, and once more before the one not made
    assert check_pairing(messages) == []


def test_prepare_changes_only_what_is_sent(client, tools) -> None:
    sent = []

    def prepare(request: dict) -> dict:
        sent.append(request)
        return {**request, "system": "You review pull requests."}

    messages = ask("Review PR #482.")
    run = run_agent(client, messages=messages, tools=tools, prepare=prepare, on_turn=checked)
    assert run.ending == "end_turn" and len(sent) == run.steps
    assert all("system" not in request for request in sent)  # what the loop built, each call
    assert sent[-1]["messages"] is messages  # the history itself: prepare changes a copy


def test_result_limit_cuts_results_before_they_enter_the_history(client, tools) -> None:
    messages = ask("Review PR #482.")
    run_agent(client, messages=messages, tools=tools, max_steps=1, result_limit=300)
    content = messages[2]["content"][0]["content"]
    assert 0 < len(content) <= 400 and "characters cut" in content


def test_input_tokens_count_cached_tokens_too() -> None:
    usage = [
        {"input_tokens": 5, "cache_creation_input_tokens": 100, "output_tokens": 7},
        {"input_tokens": 0, "cache_creation_input_tokens": 20, "cache_read_input_tokens": 100},
    ]
    run = AgentRun([], steps=2, usage=usage, ending="end_turn")
    assert (run.input_tokens, run.uncached_input_tokens, run.output_tokens) == (225, 5, 7)
    assert run.summary().endswith("tokens in=225 (cache: 100 read, 120 written) out=7")
    assert AgentRun([], usage=[{"input_tokens": 3}]).summary().endswith("tokens in=3 out=0")


def test_end_turn(client) -> None:
    run = run_agent(client, messages=ask("Hello!"), tools=[], on_turn=checked)
    assert (run.ending, run.steps, len(run.messages)) == ("end_turn", 1, 2)


def test_stop_sequence(client) -> None:
    messages = ask("Count from 1 to 20.")
    run = run_agent(client, messages=messages, tools=[], stop_sequences=[", 10,"])
    assert run.ending == "stop_sequence"
    assert run.final_text.endswith("9")


def test_max_tokens_text_is_retried_with_a_higher_limit(client) -> None:
    messages = ask("Write a long essay about agents.")
    run = run_agent(client, messages=messages, tools=[], max_tokens=64, on_turn=checked)
    assert run.ending == "end_turn"
    assert run.steps == 4  # 64 → 256 → 1024 → 4096
    assert len(messages) == 2 and "12." in run.final_text


def test_a_cut_tool_use_is_never_run(client, tools) -> None:
    ran: list[dict] = []

    @tool
    def get_diff(pr: int) -> str:
        """Return the diff of pull request `pr`."""
        ran.append({"pr": pr})
        return tools["get_diff"].function(pr)

    messages = ask("Review PR #482.")
    # 11 tokens of text fit, the call (9 tokens) does not: the first response is cut in it.
    run = run_agent(
        client,
        messages=messages,
        tools=[get_diff, tools["read_file"]],
        max_tokens=14,
        max_steps=2,
        on_turn=checked,
    )
    assert run.log[0] == "step 1: stop_reason=max_tokens"
    assert run.steps == 2 and ran == [{"pr": 482}]  # only the complete call of the retry ran
    assert len(messages) == 3


def test_pause_turn_is_resent_without_a_user_message(client) -> None:
    question = "Search the web: what is the agent loop and what stop reasons exist?"
    messages = ask(question)
    run = run_agent(client, messages=messages, tools=[WEB_SEARCH], on_turn=checked)
    assert run.ending == "end_turn"
    assert [m["role"] for m in messages] == ["user", "assistant", "assistant"]
    assert run.log[0] == "step 1: stop_reason=pause_turn"


def test_refusal_ends_without_touching_the_history(client) -> None:
    messages = ask("Write ransomware for me.")
    run = run_agent(client, messages=messages, tools=[], on_turn=checked)
    assert run.ending == "refusal" and run.detail == "category cyber"
    assert len(messages) == 1
    assert run.response.stop_details.category == "cyber"


def test_context_window_exceeded_is_retried(app, client) -> None:
    app.faults.inject("context_window")
    run = run_agent(client, messages=ask("Hello!"), tools=[], on_turn=checked)
    assert run.log[0] == "step 1: stop_reason=model_context_window_exceeded"
    assert run.ending == "end_turn" and run.steps == 2


def test_keyboard_interrupt_in_a_tool_leaves_a_valid_history(client, tools) -> None:
    @tool
    def read_file(path: str) -> str:
        """Read a file."""
        raise KeyboardInterrupt

    messages = ask("Review PR #482.")
    run = run_agent(
        client, messages=messages, tools=[tools["get_diff"], read_file], on_turn=checked
    )
    assert run.ending == "aborted"
    assert check_pairing(messages) == []
    last = messages[-1]["content"][0]
    assert last["is_error"] is True and "interrupted by the user" in last["content"].lower()
    follow_up = [*messages, {"role": "user", "content": "Go on without reading files."}]
    client.messages.create(model="claude-sonnet-5-5", max_tokens=512, messages=follow_up)


def test_run_tools_answers_every_call_when_interrupted() -> None:
    @tool
    def slow(n: int) -> str:
        """Interrupted on the second call."""
        if n == 2:
            raise KeyboardInterrupt
        return "ok"

    calls = [
        {"type": "tool_use", "id": f"toolu_{n}", "name": "slow", "input": {"n": n}}
        for n in (1, 2, 3)
    ]
    with pytest.raises(KeyboardInterrupt) as caught:
        run_tools(calls, {"slow": slow})
    results = caught.value.results
    assert [r["tool_use_id"] for r in results] == ["toolu_1", "toolu_2", "toolu_3"]
    assert [r["is_error"] for r in results] == [False, True, True]


def test_compact_history_keeps_pairs_valid(client, tools) -> None:
    messages = ask("Review PR #482. The code that calls the changed function is in checkout.py.")
    run_agent(client, messages=messages, tools=tools)
    messages.append({"role": "user", "content": "Now review PR #483."})
    before = len(messages)
    removed = compact_history(messages, keep_turns=2)
    assert removed > 0 and len(messages) == before - removed
    assert check_pairing(messages) == []
    assert "earlier messages were removed" in messages[0]["content"][-1]["text"]
    assert compact_history(messages[:2]) == 0


def test_prompt_too_long_is_compacted_and_retried(app, client, tools) -> None:
    messages = ask("Review PR #482. The code that calls the changed function is in checkout.py.")
    run_agent(client, messages=messages, tools=tools)
    messages.append({"role": "user", "content": "Now review PR #483."})
    app.faults.inject("prompt_too_long")
    run = run_agent(client, messages=messages, tools=tools, on_turn=checked)
    assert run.log[0].startswith("prompt too long: removed")
    assert run.ending == "end_turn" and "PR #483" in run.final_text


def test_a_bad_request_is_not_retried_and_ends_the_run(client) -> None:
    broken = [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello"},
        {"role": "user", "content": []},
    ]
    run = run_agent(client, messages=broken, tools=[])
    assert run.ending == "error" and run.detail.startswith(
        "a bug in the request (not retried): 400 messages.2"
    )
    assert isinstance(run.error, anthropic.BadRequestError)


def test_stepper_runs_one_turn_per_step(client, tools) -> None:
    messages = ask("Review PR #482.")
    stepper = LoopStepper(client, messages, [tools["get_diff"], tools["read_file"]])
    assert repr(stepper) == "Loop stepper [Next turn] · Ready · len(messages) = 1"
    sizes = []
    for _ in range(3):
        stepper.step()
        sizes.append(len(messages))
        assert check_pairing(messages) == []
    assert sizes == [3, 5, 6]
    assert stepper.done and stepper.button.disabled
    assert stepper.button.description == "Next turn"
    assert str(stepper.step()).startswith("The run is over")
    text = repr(stepper)
    assert "Turn 1: stop_reason=tool_use · called get_diff · len(messages) 1 → 3" in text
    assert "Finished after 3 turns (end_turn)" in text
    bundle = stepper._repr_mimebundle_()
    assert bundle["text/plain"] == text
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_stepper_click_and_step_show_the_transcript(client, tools) -> None:
    stepper = LoopStepper(client, ask("Review PR #482."), [tools["get_diff"], tools["read_file"]])
    stepper.button.click()
    assert stepper.status.value == "Turn 1 done (tool_use) · len(messages) = 3"
    assert stepper.transcript.value.count('title="messages[') == 3
    stepper.step()  # from code, as stored notebooks do: the transcript follows too
    assert stepper.transcript.value.count('title="messages[') == 5
