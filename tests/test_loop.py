"""The reference loop (course_helpers.lessons.loop) against the course model, history checked every turn.

Every test builds its SDK client over a fresh `CourseModelApp`, so no state (faults, prompt
cache) leaks between tests. `pairing_problems` runs before every call through `wrap_sample`.
"""

from __future__ import annotations

from functools import partial

import anthropic
import pytest

from course_helpers.client import MODEL
from course_helpers.fixtures.pr_repo import build_pr_repo
from course_helpers.lessons.agent import AgentRun, answer_unfinished, kept, run_agent, tool_calls
from course_helpers.lessons.controller import (
    CONTINUE,
    MAX_TOKENS_CEILING,
    STREAM_ABOVE,
    Ending,
    max_output_tokens,
)
from course_helpers.lessons.dispatch import dispatch
from course_helpers.lessons.history import compact_history, drop_refused_turn
from course_helpers.lessons.loop import agent_loop, agent_turns, sampler
from course_helpers.lessons.pairing import pairing_problems
from course_helpers.lessons.tools import Tool, tool
from course_helpers.offline import CourseModelApp
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


def checked(sample):
    """wrap_sample: the history must be valid every time it is sent."""

    def sample_checked(messages, **changes):
        assert pairing_problems(messages) == [], pairing_problems(messages)
        return sample(messages, **changes)

    return sample_checked


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
        client,
        messages=messages,
        tools=[tools["get_diff"], tools["read_file"]],
        wrap_sample=checked,
    )
    assert run.ending == "end_turn"
    assert run.steps == 3 and len(messages) == 6
    assert calls_made(messages) == ["get_diff", "read_file"]
    assert messages[3]["content"][-1].input == {"path": "invoicing/checkout.py"}
    assert "customer.discount_percent" in run.final_text
    assert len(run.usage) == 3 and run.input_tokens > 0


def test_missing_pr_is_reported_honestly(client, tools) -> None:
    messages = ask("Review PR #999.")
    run = run_agent(client, messages=messages, tools=tools, wrap_sample=checked)
    assert run.ending == "end_turn"
    assert messages[2]["content"][0]["is_error"] is True
    assert "does not exist" in run.final_text and "#482 and #483" in run.final_text


def test_wrong_path_recovers_through_the_path_the_error_suggests(client, tools) -> None:
    messages = ask("Review PR #482. The code that calls the changed function is in checkout.py.")
    run = run_agent(client, messages=messages, tools=tools, wrap_sample=checked)
    assert run.ending == "end_turn"
    # The error says "Did you mean: invoicing/checkout.py?": no listing needed.
    assert calls_made(messages) == ["get_diff", "read_file", "read_file"]
    assert "customer.discount_percent" in run.final_text


def test_wrong_path_with_no_suggestion_recovers_through_list_files(client, tools, repo) -> None:
    @tool
    def read_file(path: str) -> str:
        """Read a file of the repository, by path relative to its root."""
        if path not in repo.list_files():
            raise FileNotFoundError(f"no file {path}")  # an error that suggests nothing
        return repo.read_file(path)

    plain = {**tools, "read_file": read_file}
    messages = ask("Review PR #482. The code that calls the changed function is in checkout.py.")
    run = run_agent(client, messages=messages, tools=plain, wrap_sample=checked)
    assert run.ending == "end_turn"
    assert calls_made(messages) == ["get_diff", "read_file", "list_files", "read_file"]
    assert "customer.discount_percent" in run.final_text


def test_step_limit_is_respected(client, tools) -> None:
    messages = ask("Review PR #482.")
    run = run_agent(client, messages=messages, tools=tools, max_steps=2, wrap_sample=checked)
    assert run.ending == "step_limit" and run.steps == 2
    assert len(messages) == 5  # two full turns, and the history ends with results
    assert pairing_problems(messages) == []
    again = run_agent(client, messages=messages, tools=tools, wrap_sample=checked)
    assert again.ending == "end_turn" and again.steps == 1  # it resumes where it stopped


class OverBudget(Ending):
    kind = "budget_limit"


def test_a_wrapped_sampler_ends_the_run_with_its_own_ending(client, tools) -> None:
    seen = []

    def two_calls(sample):
        def sample_counted(messages, **changes):
            seen.append(len(messages))
            if len(seen) > 2:
                raise OverBudget("two calls is enough")
            return sample(messages, **changes)

        return sample_counted

    messages = ask("Review PR #482.")
    run = run_agent(client, messages=messages, tools=tools, wrap_sample=two_calls)
    assert (run.ending, run.detail, run.steps) == ("budget_limit", "two calls is enough", 2)
    assert seen == [1, 3, 5]  # asked before every call, and once more before the one not made
    assert pairing_problems(messages) == []


def test_prepare_changes_only_what_is_sent(client, tools) -> None:
    sent = []

    def prepare(request: dict) -> dict:
        sent.append(request)
        return {**request, "system": "You review pull requests."}

    messages = ask("Review PR #482.")
    run = run_agent(client, messages=messages, tools=tools, prepare=prepare, wrap_sample=checked)
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
    run = run_agent(client, messages=ask("Hello!"), tools=[], wrap_sample=checked)
    assert (run.ending, run.steps, len(run.messages)) == ("end_turn", 1, 2)


def test_stop_sequence(client) -> None:
    messages = ask("Count from 1 to 20.")
    run = run_agent(client, messages=messages, tools=[], stop_sequences=[", 10,"])
    assert run.ending == "stop_sequence"
    assert run.final_text.endswith("9")


def test_cut_off_text_is_kept_and_continued_without_repeating(client) -> None:
    whole = client.messages.create(
        model=MODEL, max_tokens=4096, messages=ask("Write a long essay about agents.")
    )
    essay = "".join(b.text for b in whole.content if b.type == "text")
    messages = ask("Write a long essay about agents.")
    run = run_agent(client, messages=messages, tools=[], max_tokens=64, wrap_sample=checked)
    assert run.ending == "end_turn"
    assert run.steps == 3  # 64, then 256, then 1024 tokens: the essay is about 1,300
    assert [m["role"] for m in messages] == ["user", *["assistant", "user"] * 2, "assistant"]
    assert messages[2]["content"] == messages[4]["content"] == CONTINUE
    # Each piece starts where the last one stopped: joined, they are the essay, once.
    pieces = [text_of(m) for m in messages if m["role"] == "assistant"]
    assert "".join(pieces) == essay == run.final_text
    assert essay.count("An agent is a program") == 12 and all(pieces)  # no paragraph twice


def text_of(message: dict) -> str:
    return "".join(b.text for b in message["content"] if b.type == "text")


@pytest.mark.parametrize("max_tokens", [6, 10, 20, 38])
def test_a_task_continued_before_its_tool_calls_is_still_the_task(client, tools, max_tokens):
    # These limits cut the text before a tool call: after "continue" and the calls, the last
    # user text is the continue request, yet the review is still the review of PR #482.
    whole = run_agent(client, messages=ask("Review PR #482."), tools=tools, wrap_sample=checked)
    messages = ask("Review PR #482.")
    run = run_agent(
        client, messages=messages, tools=tools, max_tokens=max_tokens, wrap_sample=checked
    )
    continued = [i for i, m in enumerate(messages) if m["content"] == CONTINUE]
    later_calls = [m for m in messages[continued[0] :] if m["role"] == "assistant"]
    assert continued and any(tool_calls(m) for m in later_calls[:-1]), run.log
    assert run.ending == "end_turn"
    assert run.final_text.startswith("Review of PR #482")
    assert whole.final_text.endswith(run.final_text)


def as_json(messages: list) -> list[dict]:
    """A history as the API receives it: plain JSON, SDK blocks dumped."""
    return [
        {
            "role": m["role"],
            "content": m["content"]
            if isinstance(m["content"], str)
            else [
                b.model_dump(mode="json", exclude_none=True) if hasattr(b, "model_dump") else b
                for b in m["content"]
            ],
        }
        for m in messages
    ]


def test_only_a_real_continuation_is_read_as_one_turn(client) -> None:
    from course_helpers.offline.scenarios.continuation import joined_continuations

    body = {"model": MODEL, "max_tokens": 1024}
    essay = ask("Write a long essay about agents.")
    run = run_agent(client, messages=essay, tools=[], max_tokens=64)
    joined = joined_continuations(body, as_json(essay))
    assert len(essay) == 6 and [m["role"] for m in joined] == ["user", "assistant"]
    assert "".join(b["text"] for b in joined[1]["content"] if b["type"] == "text") == (
        run.final_text
    )
    # "Please go on" after a finished answer is the person's own turn: it stays.
    chat = ask("Hello!")
    run_agent(client, messages=chat, tools=[])
    chat += [
        {"role": "user", "content": "Please go on."},
        {"role": "assistant", "content": "Something else."},
    ]
    assert joined_continuations(body, as_json(chat)) == as_json(chat)


@pytest.mark.parametrize("max_tokens", [6, 20, 45])
def test_support_agent_solves_every_case_when_cut_off_and_continued(client, max_tokens) -> None:
    from course_helpers.fixtures.support_desk import CASES, Desk
    from course_helpers.lessons.workflows.agent import AGENT_SYSTEM
    from course_helpers.lessons.workflows.scoring import judge

    for case in CASES:
        desk = Desk()
        run = run_agent(
            client,
            messages=ask(case.ticket),
            tools=desk.tools(),
            system=AGENT_SYSTEM,
            max_tokens=max_tokens,
            max_steps=40,
            wrap_sample=checked,
        )
        assert judge(case, run.final_text, desk.refunds) == (True, ""), (case.name, run.log)


def cut_review(client, tools, ceiling_above: int | None = None, **options):
    """The review, started with the smallest max_tokens that cuts the answer in its tool_use.

    `ceiling_above`: the model's maximum is that many tokens above the first max_tokens.
    Returns the run, its history, the max_tokens of every request and the get_diff calls
    that really ran.
    """
    ran: list[dict] = []

    @tool
    def get_diff(pr: int) -> str:
        """Return the diff of pull request `pr`."""
        ran.append({"pr": pr})
        return tools["get_diff"].function(pr)

    reviewer = [get_diff, tools["read_file"]]
    definitions = [t.definition() for t in reviewer]
    for limit in range(1, 400):
        response = client.messages.create(
            model=MODEL, max_tokens=limit, tools=definitions, messages=ask("Review PR #482.")
        )
        if response.stop_reason == "max_tokens" and tool_calls(response):
            break
    if ceiling_above is not None:
        options["max_tokens_ceiling"] = limit + ceiling_above
    sent: list[int] = []
    messages = ask("Review PR #482.")
    run = run_agent(
        client,
        messages=messages,
        tools=reviewer,
        max_tokens=limit,
        prepare=lambda request: sent.append(request["max_tokens"]) or request,
        wrap_sample=checked,
        **options,
    )
    return run, messages, sent, ran, limit


def test_a_cut_tool_use_is_never_run(client, tools) -> None:
    run, messages, sent, ran, limit = cut_review(client, tools, max_steps=2)
    assert run.log[0] == "step 1: stop_reason=max_tokens"
    assert sent == [limit, 4 * limit]  # dropped, then asked again with four times the room
    assert run.steps == 2 and ran == [{"pr": 482}]  # only the complete call of the retry ran
    assert len(messages) == 3


def test_max_tokens_never_grows_above_the_models_maximum(client, tools) -> None:
    # A model that can write one token more than the first request allows, no further.
    run, messages, sent, ran, limit = cut_review(client, tools, ceiling_above=1)
    assert sent == [limit, limit + 1]
    assert (run.ending, run.detail) == ("max_tokens", f"still cut off at max_tokens={limit + 1}")
    assert ran == [] and messages == ask("Review PR #482.")


def test_every_retry_counts_toward_the_step_limit(client, tools) -> None:
    run, _, sent, ran, limit = cut_review(client, tools, max_steps=1)
    assert (run.ending, run.steps, sent, ran) == ("step_limit", 1, [limit], [])


def test_an_answer_cut_before_any_text_is_asked_again_with_more_room(client) -> None:
    messages = ask("Hello!")
    run = run_agent(client, messages=messages, tools=[], max_tokens=2, wrap_sample=checked)
    assert run.log[1] == "cut off before any text: retrying with limit=8"
    assert run.ending == "end_turn" and [m["role"] for m in messages] == ["user", "assistant"]


def test_a_server_tool_call_cut_off_is_dropped_not_kept(client) -> None:
    # max_tokens=60 cuts the first answer inside its web_search request, which never ran.
    question = "Search the web: what is the agent loop and what stop reasons exist?"
    cut = client.messages.create(
        model=MODEL, max_tokens=60, tools=[WEB_SEARCH], messages=ask(question)
    )
    assert cut.stop_reason == "max_tokens" and cut.content[-1].type == "server_tool_use"
    messages = ask(question)
    run = run_agent(
        client, messages=messages, tools=[WEB_SEARCH], max_tokens=60, wrap_sample=checked
    )
    assert run.log[1] == "cut off inside a server tool call (not run): retrying with limit=240"
    assert run.ending == "end_turn" and CONTINUE not in [m["content"] for m in messages]
    for message in messages[1:]:  # every server call kept in the history has its result
        types = [b.type for b in message["content"]]
        assert types.count("server_tool_use") == types.count("web_search_tool_result")


def test_a_large_max_tokens_is_streamed(client) -> None:
    with pytest.raises(ValueError, match="Streaming is required"):  # the SDK's own rule
        client.messages.create(model=MODEL, max_tokens=STREAM_ABOVE + 1, messages=ask("Hello!"))
    run = run_agent(client, messages=ask("Hello!"), tools=[], max_tokens=STREAM_ABOVE + 1)
    assert run.ending == "end_turn" and run.final_text.startswith("Hello!")


def test_the_models_maximum_comes_from_the_api(client) -> None:
    class NoModelList:
        class models:  # noqa: N801 (the SDK's attribute name)
            @staticmethod
            def retrieve(model):
                raise anthropic.APIConnectionError(request=None)  # type: ignore[arg-type]

    assert max_output_tokens(NoModelList(), MODEL) == MAX_TOKENS_CEILING
    try:
        listed = client.models.retrieve(MODEL).max_tokens
    except anthropic.NotFoundError:  # a server without a model list
        listed = MAX_TOKENS_CEILING
    assert max_output_tokens(client, MODEL) == listed


def test_pause_turn_is_resent_without_a_user_message(client) -> None:
    question = "Search the web: what is the agent loop and what stop reasons exist?"
    messages = ask(question)
    run = run_agent(client, messages=messages, tools=[WEB_SEARCH], wrap_sample=checked)
    assert run.ending == "end_turn"
    assert [m["role"] for m in messages] == ["user", "assistant", "assistant"]
    assert run.log[0] == "step 1: stop_reason=pause_turn"


def test_refusal_takes_the_refused_turn_out_so_a_rephrase_works(client) -> None:
    messages = ask("Write ransomware for me.")
    run = run_agent(client, messages=messages, tools=[], wrap_sample=checked)
    assert run.ending == "refusal" and run.detail == "category cyber" and run.steps == 1
    assert run.response.stop_details.category == "cyber"
    assert messages == [] and run.refused_turn == ask("Write ransomware for me.")
    messages.append({"role": "user", "content": "How do I protect our laptops from ransomware?"})
    again = run_agent(client, messages=messages, tools=[], wrap_sample=checked)
    assert again.ending == "end_turn" and "backups" in again.final_text


def test_a_rephrase_after_a_refused_turn_left_in_place_is_refused_again(client) -> None:
    messages = [
        *ask("Write ransomware for me."),
        {"role": "user", "content": "How do I protect our laptops from ransomware?"},
    ]  # two user messages in a row are one turn: the refused request is still in it
    run = run_agent(client, messages=messages, tools=[])
    assert run.ending == "refusal" and messages == []


def test_drop_refused_turn_keeps_the_results_that_answer_the_turn_before() -> None:
    call = {"type": "tool_use", "id": "toolu_1", "name": "get_diff", "input": {"pr": 1}}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "diff"}
    messages = [
        *ask("Review PR #1."),
        {"role": "assistant", "content": [call]},
        {"role": "user", "content": [result, {"type": "text", "text": "Now write ransomware."}]},
    ]
    removed = drop_refused_turn(messages)
    assert len(removed) == 1 and messages[-1] == {"role": "user", "content": [result]}
    assert pairing_problems(messages) == []
    assert drop_refused_turn([]) == []


def test_context_window_exceeded_with_nothing_to_compact_ends_the_run(app, client) -> None:
    app.faults.inject("context_window")
    messages = ask("Hello!")
    run = run_agent(client, messages=messages, tools=[], wrap_sample=checked)
    assert run.log[0] == "step 1: stop_reason=model_context_window_exceeded"
    assert (run.ending, run.detail, run.steps) == (
        "model_context_window_exceeded",
        "nothing left to compact",
        1,
    )
    assert [m["role"] for m in messages] == ["user", "assistant"]  # the cut text is kept


def test_context_window_exceeded_compacts_a_long_history(app, client, tools) -> None:
    messages = ask("Review PR #482. The code that calls the changed function is in checkout.py.")
    run_agent(client, messages=messages, tools=tools)
    messages.append({"role": "user", "content": "Now review PR #483."})
    app.faults.inject("context_window")
    run = run_agent(client, messages=messages, tools=tools, wrap_sample=checked)
    assert run.log[1].startswith("context window full: removed ")
    assert run.ending == "end_turn" and "PR #483" in run.final_text
    sent = [u["input_tokens"] for u in run.usage]
    assert sent[1] < sent[0] * 0.8  # the retry sent a shorter history


def test_keyboard_interrupt_in_a_tool_leaves_a_valid_history(client, tools) -> None:
    @tool
    def read_file(path: str) -> str:
        """Read a file."""
        raise KeyboardInterrupt

    messages = ask("Review PR #482.")
    run = run_agent(
        client, messages=messages, tools=[tools["get_diff"], read_file], wrap_sample=checked
    )
    assert run.ending == "aborted"
    assert pairing_problems(messages) == []
    last = messages[-1]["content"][0]
    assert last["is_error"] is True and "interrupted by the user" in last["content"].lower()
    follow_up = [*messages, {"role": "user", "content": "Go on without reading files."}]
    # A history with tool blocks needs its tools defined (the API refuses it otherwise).
    definitions = [tools["get_diff"].definition(), read_file.definition()]
    client.messages.create(model=MODEL, max_tokens=512, messages=follow_up, tools=definitions)


def test_answer_unfinished_answers_every_call_after_an_interrupt() -> None:
    @tool
    def slow(n: int) -> str:
        """Interrupted on the second call."""
        if n == 2:
            raise KeyboardInterrupt
        return "ok"

    run = AgentRun([])
    run_one = kept(partial(dispatch, {"slow": slow}), run)
    calls = [
        {"type": "tool_use", "id": f"toolu_{n}", "name": "slow", "input": {"n": n}}
        for n in (1, 2, 3)
    ]
    with pytest.raises(KeyboardInterrupt):
        [run_one(call) for call in calls]
    results = answer_unfinished(calls, run.answered)
    assert [r["tool_use_id"] for r in results] == ["toolu_1", "toolu_2", "toolu_3"]
    assert [r["is_error"] for r in results] == [False, True, True]
    assert "while it was running" in results[1]["content"]
    assert results[2]["content"].startswith("Not run")


def test_compact_history_keeps_pairs_valid(client, tools) -> None:
    messages = ask("Review PR #482. The code that calls the changed function is in checkout.py.")
    run_agent(client, messages=messages, tools=tools)
    messages.append({"role": "user", "content": "Now review PR #483."})
    before = len(messages)
    removed = compact_history(messages, keep_turns=2)
    assert removed > 0 and len(messages) == before - removed
    assert pairing_problems(messages) == []
    assert "earlier messages were removed" in messages[0]["content"][-1]["text"]
    assert compact_history(messages[:2]) == 0


def test_prompt_too_long_is_compacted_and_retried(app, client, tools) -> None:
    messages = ask("Review PR #482. The code that calls the changed function is in checkout.py.")
    run_agent(client, messages=messages, tools=tools)
    messages.append({"role": "user", "content": "Now review PR #483."})
    app.faults.inject("prompt_too_long")
    run = run_agent(client, messages=messages, tools=tools, wrap_sample=checked)
    assert run.log[0].startswith("step 1: prompt too long: removed")
    assert run.steps == 3  # the call refused as too long counts too
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


def stepper_for(client, tools, messages: list) -> LoopStepper:
    reviewer = {name: tools[name] for name in ("get_diff", "read_file")}
    definitions = [t.definition() for t in reviewer.values()]
    sample = sampler(client, model=MODEL, max_tokens=2048, tools=definitions)
    return LoopStepper(sample, partial(dispatch, reviewer), messages)


def test_stepper_runs_one_turn_per_step(client, tools) -> None:
    messages = ask("Review PR #482.")
    stepper = stepper_for(client, tools, messages)
    assert repr(stepper) == "Loop stepper [Next turn] · Ready · len(messages) = 1"
    sizes = []
    for _ in range(3):
        stepper.step()
        sizes.append(len(messages))
        assert pairing_problems(messages) == []
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
    stepper = stepper_for(client, tools, ask("Review PR #482."))
    stepper.button.click()
    assert stepper.status.value == "Turn 1 done (tool_use) · len(messages) = 3"
    assert stepper.transcript.value.count('title="messages[') == 3
    stepper.step()  # from code, as stored notebooks do: the transcript follows too
    assert stepper.transcript.value.count('title="messages[') == 5


def test_the_loop_is_ten_lines_and_its_turn_by_turn_form_differs_in_one_line() -> None:
    """agent_turns must stay agent_loop with phase 3 (execute) turned into a `yield`; both short.

    The rule is read from the saved code, not spelled out here: the one differing statement must
    assign the same name in both, from running every call (`[run_tool(c) for c in <calls>]`)
    in the loop and from `yield <calls>` in its turn-by-turn form. Notebook 07's prose and
    README's maintainer notes quote both lines, so they are checked against the code too.
    """
    import ast
    import inspect

    def body(function) -> list[ast.stmt]:
        statements = ast.parse(inspect.getsource(function)).body[0].body
        has_docstring = isinstance(statements[0], ast.Expr) and isinstance(
            statements[0].value, ast.Constant
        )
        return statements[1:] if has_docstring else statements

    fix = (
        "agent_turns (notebook 07) must be agent_loop (notebook 04) with only the line that runs "
        "the calls changed into `<results> = yield <calls>`: change notebook 07's cell together "
        "with notebook 04's, then `make notebooks`"
    )
    loop, turns = body(agent_loop), body(agent_turns)
    assert [type(s) for s in loop] == [type(s) for s in turns] == [ast.For, ast.Raise], fix
    assert ast.dump(loop[1]) == ast.dump(turns[1]), fix  # the same step limit
    differing = [
        (a, b)
        for a, b in zip(loop[0].body, turns[0].body, strict=True)
        if ast.dump(a) != ast.dump(b)
    ]
    assert len(differing) == 1, fix
    ran, yielded = differing[0]
    assert isinstance(ran, ast.Assign) and isinstance(yielded, ast.Assign), fix
    assert ast.dump(ran.targets[0]) == ast.dump(yielded.targets[0]), fix
    assert isinstance(ran.value, ast.ListComp) and isinstance(yielded.value, ast.Yield), fix
    calls = ran.value.generators[0].iter
    assert ast.dump(yielded.value.value) == ast.dump(calls), fix
    assert ast.unparse(ran.value.elt.func) == "run_tool", fix

    # The two lines as the lesson prints them, quoted in notebook 07's prose and the README.
    loop_line = ast.unparse(ran)
    turn_line = f"{ast.unparse(yielded.targets[0])} = yield {ast.unparse(calls)}"
    from pathlib import Path

    import nbformat

    root = Path(__file__).resolve().parents[1]

    def prose(path: Path) -> str:
        notebook = nbformat.read(path, as_version=4)
        return "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")

    quoting = {
        "notebook 07's prose": prose(root / "notebooks" / "07_guard_dangerous_tools.ipynb"),
        "the Russian notebook 07's prose": prose(
            root / "notebooks" / "ru" / "07_guard_dangerous_tools.ipynb"
        ),
        "README.md": (root / "README.md").read_text(encoding="utf-8"),
    }
    for where, text in quoting.items():
        flat = " ".join(text.split())
        assert loop_line in flat and turn_line in flat, (
            f"{where} no longer quotes the two lines as the code has them: `{loop_line}` and "
            f"`{turn_line}`"
        )
    code_lines = [
        line
        for line in inspect.getsource(agent_loop).splitlines()[1:]
        if line.strip() and not line.strip().startswith("#")
    ]
    assert len(code_lines) <= 10, code_lines
