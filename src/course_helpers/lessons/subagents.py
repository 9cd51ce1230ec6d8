"""Subagents: a `task` tool whose work is a fresh agent loop (built in notebook 13).

A subagent is notebook 04's `agent_loop`, unchanged, started by a tool: `task_tool()` makes the
`task` tool, whose run gives a new agent a fresh `messages`, a system prompt for the subtask, a
subset of the parent's tools and its own step limit, and answers with only the subagent's final
text (or an `is_error` result saying how it ended). `run_in_tree` runs any agent of the tree,
parent or subagent, with the same seams: the tree's gate (notebook 07) on its dangerous calls,
the tree's one budget (notebook 10) on its calls to the model, and `side_by_side`, which runs
the turn's `task` calls at the same time, one thread each, their results still in one user
message in the calls' order. `Tree` holds what every agent of one tree shares, and stops them
all on Ctrl-C.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future

from course_helpers.client import MODEL
from course_helpers.lessons.agent import agent_parts, finished, interrupted, tool_calls
from course_helpers.lessons.controller import Ending
from course_helpers.lessons.cost.budget import OverBudget
from course_helpers.lessons.gate import Decision, Gate
from course_helpers.lessons.loop import StepLimitReached, agent_loop
from course_helpers.lessons.tools import tool
from course_helpers.support.result_wording import call_parts

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.subagents`. Edit those cells, then run `make promote`.


# From notebooks/13_delegate_to_subagents.ipynb
PARENT = "parent"  # the name of the agent at the top of the tree


class NoOneToAsk:
    """The policy of a tree given no person: every dangerous call is refused."""

    def decide(self, tool_name, tool_input):
        return Decision(False, "this tree has no person to ask", "Tree")


class OneQuestionAtATime:
    """A policy asked by parallel subagents: one question at a time, never two at once. Once
    the tree is `stopping` (Ctrl-C), no dangerous call runs, whatever the person answers."""

    def __init__(self, policy, lock, stopping=None):
        self.policy, self.lock, self.stopping = policy, lock, stopping or threading.Event()

    def decide(self, tool_name, tool_input):
        with self.lock:
            if not self.stopping.is_set():
                decision = self.policy.decide(tool_name, tool_input)
        if self.stopping.is_set():  # a yes given after Ctrl-C does not count
            return Decision(False, "the tree was stopped (Ctrl-C)", "Tree")
        return decision


def label(description):
    """The model's description of a task as it may appear in the person's question: one line,
    at most 40 characters, no quotes or brackets, so it cannot pose as part of the question."""
    words = " ".join(str(description).split())
    return "".join(c for c in words if c.isprintable() and c not in "'\"[]")[:40] or "task"


class Tree:
    """What every agent of one tree shares: the client, the gate, the budget, and a way to stop.

    `dangerous` tools go to the person whoever calls them: `policy_for(name)` is the approval
    policy (notebook 07) that asks on behalf of the agent called `name`, so the question can
    say which agent asks; without it, every dangerous call is refused. `budget` (notebook 10's Budget) pays for
    every call of every agent. `max_depth` is how many levels of subagents may exist below the
    parent. `stopping` is set by Ctrl-C: every agent stops before its next call to the model.
    """

    def __init__(
        self,
        client,
        *,
        dangerous=(),
        policy_for=None,
        budget=None,
        max_depth=1,
        max_steps=10,
        max_tokens=1024,
        model=MODEL,
        prepare=None,
    ):
        self.client, self.model, self.max_tokens = client, model, max_tokens
        self.prepare = prepare  # changes every request of every agent (notebook 10)
        self.dangerous, self.policy_for, self.budget = frozenset(dangerous), policy_for, budget
        self.max_depth, self.max_steps = max_depth, max_steps
        self.stopping = threading.Event()
        self.lock = threading.Lock()  # the budget's sums and the names
        self.asking = threading.Lock()  # one question to the person at a time
        self.runs = {}  # every agent's AgentRun, by its name
        self.gates = {}  # every agent's Gate, by its name: their audit logs
        self.threads = []  # every thread a subagent ran in
        self.seconds = {}  # how long each agent ran, by its name (wall time)

    def name_for(self, description):
        """A name for a new subagent, from its task's description (unique in the tree)."""
        with self.lock:
            name, number = f"subagent '{label(description)}'", 1
            while name in self.runs:
                number += 1
                name = f"subagent '{label(description)}' #{number}"
            self.runs[name] = None  # taken
            return name

    def gate_for(self, name):
        """Notebook 07's gate for one agent, asking the person on that agent's behalf."""
        policy = self.policy_for(name) if self.policy_for else NoOneToAsk()
        asks = OneQuestionAtATime(policy, self.asking, self.stopping)
        self.gates[name] = Gate(asks, self.dangerous)
        return self.gates[name]

    def pays(self, sample):
        """Wrap `sample` for any agent of the tree: stop on Ctrl-C, pay from the shared budget.

        Subagents running side by side each check the budget before their call, so each may
        start one call the others are also paying for: the tree can pass its limit by about
        one call per running subagent. Delegate one part a turn where that matters.
        """

        def sample_in_tree(messages, **changes):
            if self.stopping.is_set():
                raise KeyboardInterrupt("another agent of the tree was interrupted")
            if self.budget is not None:
                with self.lock:
                    if not self.budget.allows_next():
                        raise OverBudget(str(self.budget))
            response = sample(messages, **changes)
            if self.budget is not None:
                with self.lock:
                    self.budget.pay(response.usage)
            return response

        return sample_in_tree

    def stop(self):
        """Ctrl-C: every agent stops before its next call. Outside the subagents' threads (in
        the parent), wait until every one of them has ended; a subagent only sets the flag,
        since its own parent waits for it."""
        self.stopping.set()
        if threading.current_thread() in self.threads:
            return
        for thread in list(self.threads):
            try:
                thread.join()
            except RuntimeError:  # Ctrl-C came before it was started: it never runs
                continue


# From notebooks/13_delegate_to_subagents.ipynb
POLL_SECONDS = 0.05  # how often a parent waiting for its subagents looks up for Ctrl-C


def side_by_side(run_tool, messages, tree, names=("task",)):
    """Wrap `run_tool`: the turn's calls to these tools start together, one thread each.

    The loop still asks for each result in turn, so the results go back in one user message,
    in the order of the calls. Ctrl-C while waiting stops the whole tree first.
    """
    started = {}

    def start(call):
        future = Future()

        def work():
            try:
                future.set_result(run_tool(call))
            except BaseException as problem:  # handed to the waiting parent, raised there
                future.set_exception(problem)

        thread = threading.Thread(target=work, name=f"subagent for {call_parts(call)[0]}")
        with tree.lock:
            tree.threads.append(thread)
        thread.start()
        return future

    def run_tool_side_by_side(call):
        call_id, name, _ = call_parts(call)
        if name not in names:
            return run_tool(call)
        try:
            if call_id not in started:  # the first of the turn's calls: start them all
                for other in tool_calls(messages[-1]):
                    if call_parts(other)[1] in names:
                        started[call_parts(other)[0]] = start(other)
            future = started.pop(call_id)
            while True:  # waiting in short steps, so Ctrl-C is seen at once
                try:
                    return future.result(timeout=POLL_SECONDS)
                except TimeoutError:
                    continue
        except KeyboardInterrupt:
            tree.stop()
            raise

    return run_tool_side_by_side


# From notebooks/13_delegate_to_subagents.ipynb
def run_in_tree(tree, name, messages, tools, system):
    """One agent of the tree, parent or subagent: notebook 04's loop, unchanged, with the
    tree's gate and budget in its seams and its task calls run side by side."""
    run, sample, run_tool = agent_parts(
        tree.client,
        messages=messages,
        tools=tools,
        system=system,
        model=tree.model,
        max_tokens=tree.max_tokens,
        max_steps=tree.max_steps,
        approve=tree.gate_for(name),
        wrap_sample=tree.pays,
        prepare=tree.prepare,
    )
    tree.runs[name] = run
    run_tool = side_by_side(run_tool, messages, tree)
    start = time.perf_counter()
    try:
        response = agent_loop(sample, run_tool, messages, tree.max_steps)
    except StepLimitReached as limit:
        return run.finish("step_limit", str(limit))
    except Ending as ending:  # refusal, budget_limit, an API error...
        return run.finish(ending.kind, str(ending), ending.__cause__ or ending)
    except KeyboardInterrupt as stop:
        tree.stop()  # no subagent keeps running after Ctrl-C
        return interrupted(run, stop)
    finally:
        tree.seconds[name] = time.perf_counter() - start
    return finished(run, response)


# From notebooks/13_delegate_to_subagents.ipynb
SUBTASK_SYSTEM = (
    "You are a subagent of the Kettle & Co support desk. You get one part of a customer's "
    "ticket, and only that part. Use the tools to find the facts: never guess an order's "
    "status or a tracking number. Before you refund anything, read the refund policy in the "
    "help centre and follow it. Answer that part only, briefly, signed Kettle & Co support."
)


class SubagentStopped(RuntimeError):
    """A subagent ended without a final answer: the step limit, a refusal, the budget, Ctrl-C."""


def task_tool(tree, tools, depth=1, system=SUBTASK_SYSTEM):
    """The `task` tool: each call runs a new agent, with a fresh history, `tools` (a subset of
    the parent's) and `system`; its result is the subagent's final text, nothing else.

    A subagent at `depth` gets a task tool of its own only while `depth < tree.max_depth`:
    a `task` tool among `tools` is left out (copied now, so adding one later changes nothing),
    or it would let subagents delegate past the depth limit.
    """
    tools = [t for t in tools if t.name != "task"]

    def task(description: str, prompt: str, context: str = "") -> str:
        """Give one part of the work to a subagent: a new agent that sees only what you write
        here, not this conversation. `description`: a short label (3-6 words). `prompt`: the
        part to do. `context`: every fact from this conversation the subagent needs (names,
        emails, order numbers, what the person asked you not to do); it knows nothing else.
        Several task calls in one turn run at the same time. Returns the subagent's answer."""
        name = tree.name_for(description)
        own = list(tools)
        if depth < tree.max_depth:  # may it delegate in turn?
            own.append(task_tool(tree, tools, depth + 1, system))
        request = f"{prompt}\n\n{context}" if context else prompt
        run = run_in_tree(tree, name, [{"role": "user", "content": request}], own, system)
        if run.ending in ("end_turn", "stop_sequence"):
            return run.final_text
        raise SubagentStopped(f"{name} ended with {run.ending}: {run.detail}")

    return tool(task)
