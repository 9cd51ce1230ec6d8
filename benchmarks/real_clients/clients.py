"""The Python clients' checks, run by `run.py` with the clients' own Python (not the project's).

Each check prints one JSON line: client, check, ok, note. Every request carries an `x-check`
header naming its check, so `run.py` can count the requests and statuses of each.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import traceback

from pydantic import BaseModel, field_validator

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no fetch from the network
URL = os.environ["COURSE_MODEL_URL"]
ONLY = os.environ.get("ONLY", "")
SKIP = [name for name in os.environ.get("SKIP", "").split(",") if name]
MODEL = os.environ.get("CLIENT_MODEL", "claude-haiku-5-5")
KEY = "sk-offline"


class Weather(BaseModel):
    city: str
    temperature_c: float
    summary: str


class Contact(BaseModel):
    name: str
    email: str


WEATHER_TEXT = "Paris, 18 C and sunny. Give me the weather report as data."
CONTACT_TEXT = "Add a contact: Ada Lovelace, ada@example.com."
WEATHER_TOOL = {
    "name": "get_weather",
    "description": "Current weather for a city.",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}
CONTACT_TOOL = {
    "name": "add_contact",
    "description": "Add a person to the address book.",
    "input_schema": {
        "type": "object",
        "properties": {"name": {"type": "string"}, "email": {"type": "string"}},
        "required": ["name", "email"],
    },
}


def weather(city: str) -> str:
    return json.dumps({"city": city, "temperature_c": 18, "conditions": "sunny"})


# Refusals the API makes too: the retired top-level `output_format`, and a conversation that
# ends with the assistant's turn on a model without prefill (langgraph's create_react_agent
# asks for its structured response so: langchain-ai/langgraph#4940).
AS_THE_API = (
    "This field is deprecated. Use 'output_config.format' instead",
    "This model does not support assistant message prefill.",
)


def report(client: str, check: str, ok: bool, note: object = "") -> None:
    line = {"client": client, "check": check, "ok": bool(ok), "note": str(note)[:300]}
    if not ok and any(refusal in str(note) for refusal in AS_THE_API):
        line["expect_error"] = True  # the request is one the API refuses
    print(json.dumps(line))
    sys.stdout.flush()


def run(client: str, check: str, function) -> None:
    """Run one check: it returns (ok, note); an exception is a failed check."""
    if (ONLY and ONLY not in client) or any(name in client for name in SKIP):
        return
    try:
        result = function(headers(client, check))
        if asyncio.iscoroutine(result):
            result = asyncio.run(result)
        ok, note = result
    except Exception as error:  # noqa: BLE001 - every failure is a row of the table
        ok, note = False, f"{type(error).__name__}: {error}"[:300]
        traceback.print_exc(file=sys.stderr)
    report(client, check, ok, note)


def headers(client: str, check: str) -> dict[str, str]:
    return {"x-check": f"{client}:{check}"}


# -- the official SDK, strict ----------------------------------------------------------------


def sdk_checks() -> None:
    import anthropic

    def make(h):
        return anthropic.Anthropic(
            base_url=URL, api_key=KEY, default_headers=h, _strict_response_validation=True
        )

    def plain(h):
        r = make(h).messages.create(
            model=MODEL, max_tokens=200, messages=[{"role": "user", "content": "What is 2+2?"}]
        )
        said = "".join(b.text for b in r.content if b.type == "text")
        return "4" in said, said

    def tool_name(h):
        r = make(h).messages.create(
            model=MODEL,
            max_tokens=300,
            tools=[CONTACT_TOOL],
            tool_choice={"type": "tool", "name": "add_contact"},
            messages=[{"role": "user", "content": CONTACT_TEXT}],
        )
        call = next(b for b in r.content if b.type == "tool_use")
        return call.input.get("name") == "Ada Lovelace", call.input

    def stream(h):
        with make(h).messages.stream(
            model=MODEL,
            max_tokens=200,
            messages=[{"role": "user", "content": "Say hello in one short sentence."}],
        ) as s:
            text = "".join(s.text_stream)
            final = s.get_final_message()
        return bool(text) and final.stop_reason == "end_turn", text

    def structured(h):
        r = make(h).messages.parse(
            model=MODEL,
            max_tokens=300,
            output_format=Weather,
            messages=[{"role": "user", "content": WEATHER_TEXT}],
        )
        out = r.parsed_output
        return out.city == "Paris" and out.temperature_c == 18, out

    def loop(h):
        client = make(h)
        messages = [{"role": "user", "content": "What's the weather in Paris and in Tokyo?"}]
        for _ in range(6):
            r = client.messages.create(
                model=MODEL, max_tokens=400, tools=[WEATHER_TOOL], messages=messages
            )
            if r.stop_reason != "tool_use":
                said = "".join(b.text for b in r.content if b.type == "text")
                return "Paris" in said and "Tokyo" in said, said
            messages.append({"role": "assistant", "content": r.content})
            messages.append(
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": b.id, "content": weather(**b.input)}
                        for b in r.content
                        if b.type == "tool_use"
                    ],
                }
            )
        return False, "no answer after 6 turns"

    def system_after_results(h):
        client = make(h)
        messages = [{"role": "user", "content": "What's the weather in Paris?"}]
        r = client.messages.create(
            model=MODEL, max_tokens=400, tools=[WEATHER_TOOL], messages=messages
        )
        call = next(b for b in r.content if b.type == "tool_use")
        messages += [
            {"role": "assistant", "content": r.content},
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": call.id, "content": weather("Paris")}
                ],
            },
            {"role": "system", "content": "<total_tokens>1234 tokens left</total_tokens>"},
        ]
        r = client.messages.create(
            model=MODEL, max_tokens=400, tools=[WEATHER_TOOL], messages=messages
        )
        said = "".join(b.text for b in r.content if b.type == "text")
        return r.stop_reason == "end_turn" and "18" in said, said

    for name, check in [
        ("plain", plain),
        ("tool_name", tool_name),
        ("stream", stream),
        ("structured", structured),
        ("tool_loop", loop),
        ("system_after_results", system_after_results),
    ]:
        run("anthropic", name, check)


# -- pydantic-ai ---------------------------------------------------------------------------------


def pydantic_ai_checks() -> None:
    from anthropic import AsyncAnthropic
    from pydantic_ai import Agent, ModelRetry, NativeOutput, PromptedOutput, ToolOutput
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    def model(h):
        client = AsyncAnthropic(base_url=URL, api_key=KEY, default_headers=h)
        return AnthropicModel(MODEL, provider=AnthropicProvider(anthropic_client=client))

    async def plain(h):
        r = await Agent(model(h)).run("What is 2+2?")
        return "4" in r.output, r.output

    async def tool_name(h):
        agent = Agent(model(h))
        added = []

        @agent.tool_plain
        def add_contact(name: str, email: str) -> str:
            """Add a person to the address book."""
            added.append(name)
            return f"added {name}"

        r = await agent.run(CONTACT_TEXT)
        return added == ["Ada Lovelace"], f"{added} / {r.output}"

    async def stream(h):
        async with Agent(model(h)).run_stream("Say hello in one short sentence.") as r:
            parts = [p async for p in r.stream_text(delta=True)]
        return bool("".join(parts)), "".join(parts)

    async def structured(h, kind):
        wrap = {"tool": ToolOutput, "prompted": PromptedOutput, "native": NativeOutput}[kind]
        r = await Agent(model(h), output_type=wrap(Weather)).run(WEATHER_TEXT)
        return r.output.city == "Paris" and r.output.temperature_c == 18, r.output

    async def loop(h):
        agent = Agent(model(h))

        @agent.tool_plain
        def get_weather(city: str) -> str:
            """Current weather for a city."""
            return weather(city)

        r = await agent.run("What's the weather in Paris and in Tokyo?")
        return "Paris" in r.output and "Tokyo" in r.output, r.output

    async def retry(h):
        agent = Agent(model(h), output_type=Weather)
        tries = []

        @agent.output_validator
        def once(value: Weather) -> Weather:
            tries.append(value)
            if len(tries) == 1:
                raise ModelRetry("Give the summary in a full sentence, please.")
            return value

        r = await agent.run(WEATHER_TEXT)
        return len(tries) == 2 and r.output.city == "Paris", f"{len(tries)} tries: {r.output}"

    run("pydantic-ai", "plain", plain)
    run("pydantic-ai", "tool_name", tool_name)
    run("pydantic-ai", "stream", stream)
    for kind in ("tool", "prompted", "native"):
        run("pydantic-ai", f"structured_{kind}", lambda h, k=kind: structured(h, k))
    run("pydantic-ai", "tool_loop", loop)
    run("pydantic-ai", "validation_retry", retry)


# -- langchain-anthropic -------------------------------------------------------------------------


def langchain_checks() -> None:
    from langchain_anthropic import ChatAnthropic
    from langchain_core.messages import HumanMessage, SystemMessage, ToolMessage

    def chat(h):
        return ChatAnthropic(
            model=MODEL, base_url=URL, api_key=KEY, default_headers=h, max_tokens=400
        )

    def plain(h):
        r = chat(h).invoke("What is 2+2?")
        return "4" in r.text, r.text

    def tool_name(h):
        r = chat(h).bind_tools([Contact], tool_choice="Contact").invoke(CONTACT_TEXT)
        return r.tool_calls and r.tool_calls[0]["args"].get("name") == "Ada Lovelace", r.tool_calls

    def stream(h):
        text = "".join(c.text for c in chat(h).stream("Say hello in one short sentence."))
        return bool(text), text

    def structured(h, method):
        r = chat(h).with_structured_output(Weather, method=method).invoke(WEATHER_TEXT)
        return r.city == "Paris" and r.temperature_c == 18, r

    def loop(h, system_after=False):
        model = chat(h).bind_tools([WEATHER_TOOL])
        messages = [HumanMessage("What's the weather in Paris and in Tokyo?")]
        for _ in range(6):
            r = model.invoke(messages)
            if not r.tool_calls:
                return "Paris" in r.text and "Tokyo" in r.text, r.text
            messages.append(r)
            messages += [
                ToolMessage(weather(**c["args"]), tool_call_id=c["id"]) for c in r.tool_calls
            ]
            if system_after:
                messages.append(SystemMessage("<total_tokens>1234 tokens left</total_tokens>"))
        return False, "no answer after 6 turns"

    run("langchain-anthropic", "plain", plain)
    run("langchain-anthropic", "tool_name", tool_name)
    run("langchain-anthropic", "stream", stream)
    for method in ("function_calling", "json_schema"):
        run("langchain-anthropic", f"structured_{method}", lambda h, m=method: structured(h, m))
    run("langchain-anthropic", "tool_loop", loop)
    run("langchain-anthropic", "system_after_results", lambda h: loop(h, True))


# -- instructor ----------------------------------------------------------------------------------


def instructor_checks() -> None:
    import anthropic
    import instructor

    class Checked(BaseModel):
        name: str
        email: str

        @field_validator("email")
        @classmethod
        def example_domain(cls, value: str) -> str:
            if not value.endswith("@example.com"):
                raise ValueError("the email must end in @example.com")
            return value

    tries: list[int] = []

    def make(h, mode):
        base = anthropic.Anthropic(base_url=URL, api_key=KEY, default_headers=h)
        return instructor.from_anthropic(base, mode=mode)

    def extract(h, mode, model_type=Contact, text=CONTACT_TEXT):
        r = make(h, mode).messages.create(
            model=MODEL,
            max_tokens=400,
            max_retries=2,
            response_model=model_type,
            messages=[{"role": "user", "content": text}],
        )
        return r

    modes = {
        "tools": instructor.Mode.ANTHROPIC_TOOLS,
        "json": instructor.Mode.ANTHROPIC_JSON,
    }
    for label, mode in modes.items():
        run(
            "instructor",
            f"tool_name_{label}",
            lambda h, m=mode: (lambda r: (r.name == "Ada Lovelace", r))(extract(h, m)),
        )
        run(
            "instructor",
            f"structured_{label}",
            lambda h, m=mode: (lambda r: (r.city == "Paris" and r.temperature_c == 18, r))(
                extract(h, m, Weather, WEATHER_TEXT)
            ),
        )
    # A validation retry: the first answer's email is refused, the retry quotes the error.
    run(
        "instructor",
        "validation_retry",
        lambda h: (lambda r: (r.email.endswith("@example.com"), r))(
            extract(
                h,
                instructor.Mode.ANTHROPIC_TOOLS,
                Checked,
                "Add Ada Lovelace, ada@lovelace.org"
                " (her address book entry must use the example.com domain).",
            )
        ),
    )
    del tries


# -- litellm -------------------------------------------------------------------------------------


def litellm_checks() -> None:
    import litellm

    def call(h, **kwargs):
        return litellm.completion(
            model=f"anthropic/{MODEL}",
            api_base=URL,
            api_key=KEY,
            extra_headers=h,
            max_tokens=400,
            **kwargs,
        )

    openai_tool = {
        "type": "function",
        "function": {
            "name": "add_contact",
            "description": "Add a person to the address book.",
            "parameters": CONTACT_TOOL["input_schema"],
        },
    }
    weather_tool = {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather for a city.",
            "parameters": WEATHER_TOOL["input_schema"],
        },
    }

    def plain(h):
        r = call(h, messages=[{"role": "user", "content": "What is 2+2?"}])
        said = r.choices[0].message.content or ""
        return "4" in said, said

    def tool_name(h):
        r = call(
            h,
            messages=[{"role": "user", "content": CONTACT_TEXT}],
            tools=[openai_tool],
            tool_choice={"type": "function", "function": {"name": "add_contact"}},
        )
        args = json.loads(r.choices[0].message.tool_calls[0].function.arguments)
        return args.get("name") == "Ada Lovelace", args

    def stream(h):
        parts = call(h, stream=True, messages=[{"role": "user", "content": "Say hello briefly."}])
        text = "".join((p.choices[0].delta.content or "") for p in parts)
        return bool(text), text

    def structured(h):
        r = call(
            h,
            messages=[{"role": "user", "content": WEATHER_TEXT}],
            response_format=Weather,
        )
        out = Weather.model_validate_json(r.choices[0].message.content)
        return out.city == "Paris" and out.temperature_c == 18, out

    def loop(h, system_after=False):
        messages = [{"role": "user", "content": "What's the weather in Paris and in Tokyo?"}]
        for _ in range(6):
            r = call(h, messages=messages, tools=[weather_tool])
            message = r.choices[0].message
            if not message.tool_calls:
                said = message.content or ""
                return "Paris" in said and "Tokyo" in said, said
            messages.append(message.model_dump(exclude_none=True))
            for c in message.tool_calls:
                result = weather(**json.loads(c.function.arguments))
                messages.append({"role": "tool", "tool_call_id": c.id, "content": result})
            if system_after:
                messages.append({"role": "system", "content": "<total_tokens>99</total_tokens>"})
        return False, "no answer after 6 turns"

    run("litellm", "plain", plain)
    run("litellm", "tool_name", tool_name)
    run("litellm", "stream", stream)
    run("litellm", "structured", structured)
    run("litellm", "tool_loop", loop)
    run("litellm", "system_after_results", lambda h: loop(h, True))


# -- openai-agents through litellm ---------------------------------------------------------------


def openai_agents_checks() -> None:
    from agents import Agent, ModelSettings, Runner, function_tool, set_tracing_disabled
    from agents.extensions.models.litellm_model import LitellmModel

    set_tracing_disabled(True)

    def agent(h, **kwargs):
        model = LitellmModel(model=f"anthropic/{MODEL}", base_url=URL, api_key=KEY)
        settings = ModelSettings(extra_headers=h, max_tokens=400)
        return Agent(name="helper", model=model, model_settings=settings, **kwargs)

    @function_tool
    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return weather(city)

    added: list[str] = []

    @function_tool
    def add_contact(name: str, email: str) -> str:
        """Add a person to the address book."""
        added.append(name)
        return f"added {name}"

    def plain(h):
        r = Runner.run_sync(agent(h, instructions="Be brief."), "What is 2+2?")
        return "4" in r.final_output, r.final_output

    def tool_name(h):
        r = Runner.run_sync(agent(h, tools=[add_contact]), CONTACT_TEXT)
        return added == ["Ada Lovelace"], f"{added} / {r.final_output}"

    async def stream(h):
        r = Runner.run_streamed(agent(h), "Say hello in one short sentence.")
        async for _ in r.stream_events():
            pass
        return bool(r.final_output), r.final_output

    def structured(h):
        r = Runner.run_sync(agent(h, output_type=Weather), WEATHER_TEXT)
        out = r.final_output
        return out.city == "Paris" and out.temperature_c == 18, out

    def loop(h):
        r = Runner.run_sync(
            agent(h, tools=[get_weather]), "What's the weather in Paris and in Tokyo?"
        )
        return "Paris" in r.final_output and "Tokyo" in r.final_output, r.final_output

    run("openai-agents", "plain", plain)
    run("openai-agents", "tool_name", tool_name)
    run("openai-agents", "stream", stream)
    run("openai-agents", "structured", structured)
    run("openai-agents", "tool_loop", loop)


# -- llama-index ---------------------------------------------------------------------------------


def llama_index_checks() -> None:
    from llama_index.core.llms import ChatMessage
    from llama_index.core.tools import FunctionTool
    from llama_index.llms.anthropic import Anthropic

    def llm(h):
        return Anthropic(model=MODEL, base_url=URL, api_key=KEY, default_headers=h, max_tokens=400)

    def plain(h):
        r = llm(h).complete("What is 2+2?")
        return "4" in r.text, r.text

    def add_contact(name: str, email: str) -> str:
        """Add a person to the address book."""
        return f"added {name}"

    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return weather(city)

    def tool_name(h):
        tool = FunctionTool.from_defaults(fn=add_contact)
        r = llm(h).chat_with_tools([tool], user_msg=CONTACT_TEXT, tool_required=True)
        calls = llm(h).get_tool_calls_from_response(r, error_on_no_tool_call=True)
        return calls[0].tool_kwargs.get("name") == "Ada Lovelace", calls[0].tool_kwargs

    def stream(h):
        text = "".join(
            c.delta or ""
            for c in llm(h).stream_chat(
                [ChatMessage(role="user", content="Say hello in one short sentence.")]
            )
        )
        return bool(text), text

    def structured(h):
        out = llm(h).as_structured_llm(Weather).complete(WEATHER_TEXT).raw
        return out.city == "Paris" and out.temperature_c == 18, out

    def loop(h):
        tool = FunctionTool.from_defaults(fn=get_weather)
        r = llm(h).predict_and_call([tool], "What's the weather in Paris?")
        return "sunny" in str(r), str(r)

    run("llama-index", "plain", plain)
    run("llama-index", "tool_name", tool_name)
    run("llama-index", "stream", stream)
    run("llama-index", "structured", structured)
    run("llama-index", "tool_loop", loop)


# -- claude-agent-sdk (drives the bundled CLI) ---------------------------------------------------


def claude_agent_checks() -> None:
    from claude_agent_sdk import (
        AssistantMessage,
        ClaudeAgentOptions,
        ResultMessage,
        TextBlock,
        create_sdk_mcp_server,
        query,
        tool,
    )

    @tool("get_weather", "Current weather for a city.", {"city": str})
    async def get_weather(args):
        return {"content": [{"type": "text", "text": weather(args["city"])}]}

    @tool("add_contact", "Add a person to the address book.", {"name": str, "email": str})
    async def add_contact(args):
        return {"content": [{"type": "text", "text": f"added {args['name']}"}]}

    server = create_sdk_mcp_server("desk", tools=[get_weather, add_contact])

    home = tempfile.mkdtemp(prefix="claude-home-")  # no settings of this machine are read

    async def ask(h, prompt, **kwargs):
        env = {
            "HOME": home,
            "CLAUDE_CONFIG_DIR": home,
            "ANTHROPIC_BASE_URL": URL,
            "ANTHROPIC_API_KEY": KEY,
            "ANTHROPIC_CUSTOM_HEADERS": f"x-check: {h['x-check']}",
            "ANTHROPIC_MODEL": MODEL,
            "ANTHROPIC_SMALL_FAST_MODEL": MODEL,
            "DISABLE_TELEMETRY": "1",
            "ENABLE_TOOL_SEARCH": "false",  # the MCP tools in the request, not behind a search
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        options = ClaudeAgentOptions(
            model=MODEL,
            env=env,
            max_turns=6,
            mcp_servers={"desk": server},
            cwd=home,
            setting_sources=[],
            **kwargs,
        )
        texts, result = [], None
        async for message in query(prompt=prompt, options=options):
            if isinstance(message, AssistantMessage):
                texts += [b.text for b in message.content if isinstance(b, TextBlock)]
            if isinstance(message, ResultMessage):
                result = message
        return " ".join(texts), result

    async def plain(h):
        said, result = await ask(h, "Say hello in one short sentence.")
        return bool(said) and not (
            result and result.is_error
        ), f"{said} / {result and result.subtype}"

    async def loop(h):
        said, result = await ask(
            h,
            "What's the weather in Paris and in Tokyo?",
            allowed_tools=["mcp__desk__get_weather"],
        )
        ok = "Tokyo" in said and "sunny" in said and result and not result.is_error
        return ok, f"{said[-200:]} / turns {result and result.num_turns}"

    async def tool_name(h):
        said, result = await ask(h, CONTACT_TEXT, allowed_tools=["mcp__desk__add_contact"])
        ok = result is not None and not result.is_error and "added Ada Lovelace" in said
        return ok, f"{said[-200:]}"

    run("claude-agent-sdk", "plain", plain)
    run("claude-agent-sdk", "tool_name", tool_name)
    run("claude-agent-sdk", "tool_loop", loop)


CLIENTS = {
    "anthropic": sdk_checks,
    "pydantic-ai": pydantic_ai_checks,
    "langchain-anthropic": langchain_checks,
    "instructor": instructor_checks,
    "litellm": litellm_checks,
    "openai-agents": openai_agents_checks,
    "llama-index": llama_index_checks,
    "claude-agent-sdk": claude_agent_checks,
}

if __name__ == "__main__":
    from frameworks import FRAMEWORKS  # the agent frameworks, each in a venv of its own

    CLIENTS |= FRAMEWORKS
    for name, client_checks in CLIENTS.items():
        if (ONLY and ONLY not in name) or any(skipped in name for skipped in SKIP):
            continue
        try:
            client_checks()
        except Exception as error:  # noqa: BLE001 - an import that fails is a row too
            report(name, "import", False, f"{type(error).__name__}: {error}")
