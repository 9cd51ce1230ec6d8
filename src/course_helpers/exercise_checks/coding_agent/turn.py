"""Course machinery (exercise checks): exercise 08.2, `check_agent_turn`: the order its rules are
tried in.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from course_helpers.exercise_checks.coding_agent.cut_off import _check_cut_off
from course_helpers.exercise_checks.coding_agent.kit import (
    CODING_TASK,
    _check_handed_back,
    _check_turn_basics,
    coding_kit,
)
from course_helpers.exercise_checks.coding_agent.scripted import (
    _check_retry_cap,
    _check_text_continued,
)
from course_helpers.exercise_checks.common import (
    fail,
    passed,
    recording_client,
    run_learner,
    short_repr,
)
from course_helpers.lessons.pairing import read_field


def check_agent_turn(agent_turn: Callable) -> None:
    """08 · `agent_turn(client, messages, tools, line, ...)`: go on while tool_use, else hand back."""
    __tracebackhide__ = True
    kit = coding_kit()
    try:
        client, recorder = recording_client()
        messages: list = []
        ending = run_learner(
            agent_turn, client, messages, kit.tools, CODING_TASK, max_steps=2, name="agent_turn"
        )
        if ending == "tool_use" or 0 < len(recorder.requests) < 2:
            fail(
                f"agent_turn handed control back after {len(recorder.requests)} call(s) with "
                f"{short_repr(ending)}, though the model was still asking for tools.",
                "stop_reason 'tool_use' means: run the calls, append the results, call again.",
            )
        _check_turn_basics(messages, recorder, kit, ending, "the coding task with max_steps=2")
        if len(recorder.requests) > 2:
            fail(
                f"with max_steps=2, agent_turn called the model {len(recorder.requests)} times.",
                "count the calls of this turn: for step in range(max_steps): ...",
            )
        if ending != "step_limit":
            fail(
                f"at the step limit agent_turn returned {short_repr(ending)}; expected 'step_limit'.",
                "after max_steps calls, return 'step_limit' (every call answered).",
            )
        before = len(recorder.requests)
        ending = run_learner(
            agent_turn, client, messages, kit.tools, "Carry on.", name="agent_turn"
        )
        _check_turn_basics(messages, recorder, kit, ending, "'Carry on.' after the step limit")
        sent = recorder.requests[before]["messages"]
        if "Carry on." not in json.dumps(sent[-1]):
            fail(
                "the person's new line is not at the end of the next request.",
                "append the line as a user message (or join it to the last results message).",
            )
        if ending != "end_turn" or not any(name == "run_command" for name, _ in kit.ran):
            fail(
                f"after 'Carry on.' the turn ended with {short_repr(ending)} before the agent had "
                "written and run the test.",
                "go round while stop_reason is 'tool_use'; return on anything else.",
            )
        _check_handed_back(agent_turn, "Write ransomware for me.", "refusal", {})
        _check_handed_back(agent_turn, "Hello!", "end_turn", {})
        if read_field(messages[-1], "role") != "assistant":
            fail(
                "after 'Carry on.' the turn ended (end_turn), but the model's final answer is not "
                "at the end of the history.",
                "append {'role': 'assistant', 'content': response.content} before you return.",
            )
        _check_cut_off(agent_turn)
        _check_retry_cap(agent_turn)
        _check_text_continued(agent_turn)
    finally:
        kit.close()
    passed("agent_turn goes on while tool_use and hands back on anything else")
