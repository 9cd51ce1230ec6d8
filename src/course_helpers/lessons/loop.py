"""The agent loop (built in notebook 04): ten lines, and everything else goes into it.

`agent_loop(sample, run_tool, messages)` repeats one turn until the model stops asking for
tools: sample the model, append its whole answer, stop unless it asked for tools, run every
call, append all the results in one user message. A step limit ends a run that goes on too long.

Its two arguments are the seams that later notebooks wrap, each in the notebook that teaches
it: `sample(messages)` calls the model (notebook 06 adds the stop-reason controller, notebook 10
a budget), and `run_tool(call)` answers one tool call (notebook 05's dispatcher, notebook 07's
gate). `course_helpers.lessons.agent.run_agent` is those wrappers put together around this loop.

`agent_turns` (built in notebook 07, for the approval buttons) is the same loop one turn at a
time: a generator that yields each turn's calls and receives their results, for code that waits
for a click between a call and its result.
"""

from __future__ import annotations

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.loop`. Edit those cells, then run `make promote`.


# From notebooks/04_build_the_loop.ipynb
class StepLimitReached(RuntimeError):
    """The model still wanted tools after max_steps turns."""


def sampler(client, **settings):
    """The function the loop calls to sample the model: the history in, the response out.

    `settings` are the other fields of every request: model, max_tokens, system, tools...
    A wrapper may change one of them for one call: `sample(messages, max_tokens=8192)`.
    """

    def sample(messages, **changes):
        return client.messages.create(**{**settings, **changes}, messages=messages)

    return sample


def agent_loop(sample, run_tool, messages, max_steps=20):
    for _ in range(max_steps):  # 5. Next: go round again, up to max_steps turns.
        response = sample(messages)  # 1. Sample: the whole history goes out every time.
        messages.append({"role": "assistant", "content": response.content})  # 4. Append it whole.
        if response.stop_reason != "tool_use":  # 2. Check: done, unless it asked for tools.
            return response
        calls = [block for block in response.content if block.type == "tool_use"]
        results = [run_tool(call) for call in calls]  # 3. Execute every call, in order.
        messages.append({"role": "user", "content": results})  # 4. Append all results at once.
    raise StepLimitReached(f"the model still wanted tools after {max_steps} turns")


# From notebooks/07_guard_dangerous_tools.ipynb
def agent_turns(sample, messages, max_steps=20):
    """agent_loop one turn at a time: yields each turn's calls, and is sent their results."""
    for _ in range(max_steps):
        response = sample(messages)
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason != "tool_use":
            return response
        calls = [block for block in response.content if block.type == "tool_use"]
        results = yield calls
        messages.append({"role": "user", "content": results})
    raise StepLimitReached(f"the model still wanted tools after {max_steps} turns")
