"""The agent frameworks' checks (strands-agents, agno, llm, smolagents, langgraph, dspy,
haystack, google-adk, mirascope), run by `clients.py` with the clients' own Python, each
framework in a venv of its own (see README.md).

Each framework points at the course model its documented way: strands-agents and agno take the
Anthropic client's arguments (`client_args`, `client_params`), llm-anthropic's `ClaudeMessages`
takes `base_url`, smolagents' `LiteLLMModel`, dspy's `LM` and google-adk's `LiteLlm` take
litellm's `api_base`, langgraph's prebuilt agent wraps a `ChatAnthropic` with `base_url`, and
haystack's `AnthropicChatGenerator`, which takes no base URL, builds an Anthropic client that
reads `ANTHROPIC_BASE_URL`; mirascope registers an Anthropic provider built with `base_url`.
"""

from __future__ import annotations

import functools
import os
import tempfile

from clients import (
    CONTACT_TEXT,
    KEY,
    MODEL,
    URL,
    WEATHER_TEXT,
    Weather,
    run,
    weather,
)
from pydantic import BaseModel, field_validator

LOOP_TEXT = "What's the weather in Paris and in Tokyo?"
TOKENS_LEFT = "<total_tokens>1234 tokens left</total_tokens>"


def _weather_ok(out) -> tuple[bool, object]:
    return out.city == "Paris" and out.temperature_c == 18, out


def _checked_contact(tries: list[str]):
    """A contact whose first email is refused once, whatever it is: a validation retry."""

    class CheckedContact(BaseModel):
        name: str
        email: str

        @field_validator("email")
        @classmethod
        def once(cls, value: str) -> str:
            tries.append(value)
            if len(tries) == 1:
                raise ValueError("write the email address in capital letters")
            return value

    return CheckedContact


# -- strands-agents (AnthropicModel) -------------------------------------------------------------


def strands_checks() -> None:
    from strands import Agent, tool
    from strands.models.anthropic import AnthropicModel

    def agent(h, **kwargs):
        model = AnthropicModel(
            client_args={"api_key": KEY, "base_url": URL, "default_headers": h},
            model_id=MODEL,
            max_tokens=400,
        )
        return Agent(model=model, callback_handler=None, **kwargs)

    added: list[str] = []

    @tool
    def add_contact(name: str, email: str) -> str:
        """Add a person to the address book.

        Args:
            name: the person's name
            email: the person's email address
        """
        added.append(name)
        return f"added {name}"

    @tool
    def get_weather(city: str) -> str:
        """Current weather for a city.

        Args:
            city: the city
        """
        return weather(city)

    def plain(h):
        said = str(agent(h)("What is 2+2?"))
        return "4" in said, said

    def tool_name(h):
        added.clear()
        said = str(agent(h, tools=[add_contact])(CONTACT_TEXT))
        return added == ["Ada Lovelace"], f"{added} / {said}"

    async def stream(h):
        parts = []
        async for event in agent(h).stream_async("Say hello in one short sentence."):
            if "data" in event:
                parts.append(event["data"])
        return bool("".join(parts)), "".join(parts)

    def structured(h):
        r = agent(h)(WEATHER_TEXT, structured_output_model=Weather)
        return _weather_ok(r.structured_output)

    def loop(h):
        said = str(agent(h, tools=[get_weather])(LOOP_TEXT))
        return "Paris" in said and "Tokyo" in said, said

    def retry(h):
        tries: list[str] = []
        r = agent(h)(CONTACT_TEXT, structured_output_model=_checked_contact(tries))
        out = r.structured_output
        return len(tries) == 2 and out.name == "Ada Lovelace", f"{len(tries)} tries: {out}"

    run("strands-agents", "plain", plain)
    run("strands-agents", "tool_name", tool_name)
    run("strands-agents", "stream", stream)
    run("strands-agents", "structured", structured)
    run("strands-agents", "tool_loop", loop)
    run("strands-agents", "validation_retry", retry)


# -- agno (Claude) -------------------------------------------------------------------------------


def agno_checks() -> None:
    from agno.agent import Agent
    from agno.models.anthropic import Claude

    def agent(h, **kwargs):
        model = Claude(
            id=MODEL,
            api_key=KEY,
            max_tokens=400,
            default_headers=h,
            client_params={"base_url": URL},
        )
        return Agent(model=model, telemetry=False, **kwargs)

    added: list[str] = []

    def add_contact(name: str, email: str) -> str:
        """Add a person to the address book."""
        added.append(name)
        return f"added {name}"

    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return weather(city)

    def plain(h):
        said = agent(h).run("What is 2+2?").content
        return "4" in str(said), said

    def tool_name(h):
        added.clear()
        said = agent(h, tools=[add_contact]).run(CONTACT_TEXT).content
        return added == ["Ada Lovelace"], f"{added} / {said}"

    def stream(h):
        parts = []
        for event in agent(h).run("Say hello in one short sentence.", stream=True):
            if getattr(event, "event", "") == "RunContent" and isinstance(event.content, str):
                parts.append(event.content)
        return bool("".join(parts)), "".join(parts)

    def structured(h, json_mode):
        r = agent(h, output_schema=Weather, use_json_mode=json_mode).run(WEATHER_TEXT)
        return _weather_ok(r.content)

    def loop(h):
        said = agent(h, tools=[get_weather]).run(LOOP_TEXT).content
        return "Paris" in said and "Tokyo" in said, said

    run("agno", "plain", plain)
    run("agno", "tool_name", tool_name)
    run("agno", "stream", stream)
    run("agno", "structured_native", lambda h: structured(h, False))
    run("agno", "structured_json_mode", lambda h: structured(h, True))
    run("agno", "tool_loop", loop)


# -- llm + llm-anthropic -------------------------------------------------------------------------


def llm_checks() -> None:
    os.environ.setdefault("LLM_USER_PATH", tempfile.mkdtemp(prefix="llm-home-"))
    import anthropic
    import llm
    import llm_anthropic
    from llm.parts import ToolResultPart

    def model(h):
        # The documented way to another endpoint: the model class with `base_url`, with the
        # capabilities the plugin registers this model with. The client the plugin builds gets
        # the check's header (it takes no headers of its own).
        llm_anthropic.Anthropic = functools.partial(anthropic.Anthropic, default_headers=h)
        kwargs = llm_anthropic.model_kwargs_from_info({"id": MODEL})
        return llm_anthropic.ClaudeMessages(MODEL, base_url=URL, **kwargs)

    added: list[str] = []

    def add_contact(name: str, email: str) -> str:
        """Add a person to the address book."""
        added.append(name)
        return f"added {name}"

    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return weather(city)

    def plain(h):
        said = model(h).prompt("What is 2+2?", max_tokens=400).text()
        return "4" in said, said

    def tool_name(h):
        added.clear()
        said = model(h).chain(CONTACT_TEXT, tools=[add_contact], options={"max_tokens": 400})
        said = said.text()
        return added == ["Ada Lovelace"], f"{added} / {said}"

    def stream(h):
        parts = list(model(h).prompt("Say hello in one short sentence.", max_tokens=400))
        return bool("".join(parts)), "".join(parts)

    def structured(h):
        said = model(h).prompt(WEATHER_TEXT, schema=Weather, max_tokens=400).text()
        return _weather_ok(Weather.model_validate_json(said))

    def loop(h):
        said = model(h).chain(LOOP_TEXT, tools=[get_weather], options={"max_tokens": 400})
        said = said.text()
        return "Paris" in said and "Tokyo" in said, said

    def system_after_results(h):
        m = model(h)
        first = m.prompt("What's the weather in Paris?", tools=[get_weather], max_tokens=400)
        first.text()
        call = first.tool_calls()[0]
        messages = [
            llm.user("What's the weather in Paris?"),
            *first.messages(),
            llm.tool_message(
                ToolResultPart(
                    name=call.name, output=weather(**call.arguments), tool_call_id=call.tool_call_id
                )
            ),
            llm.system(TOKENS_LEFT),
        ]
        said = m.prompt(messages=messages, tools=[get_weather], max_tokens=400).text()
        return "18" in said, said

    run("llm-anthropic", "plain", plain)
    run("llm-anthropic", "tool_name", tool_name)
    run("llm-anthropic", "stream", stream)
    run("llm-anthropic", "structured", structured)
    run("llm-anthropic", "tool_loop", loop)
    run("llm-anthropic", "system_after_results", system_after_results)


# -- smolagents (LiteLLMModel, anthropic/ prefix) ------------------------------------------------


def smolagents_checks() -> None:
    from smolagents import LiteLLMModel, ToolCallingAgent
    from smolagents import tool as smol_tool

    def model(h):
        return LiteLLMModel(
            model_id=f"anthropic/{MODEL}",
            api_base=URL,
            api_key=KEY,
            max_tokens=400,
            extra_headers=h,
        )

    added: list[str] = []

    @smol_tool
    def add_contact(name: str, email: str) -> str:
        """Add a person to the address book.

        Args:
            name: the person's name
            email: the person's email address
        """
        added.append(name)
        return f"added {name}"

    @smol_tool
    def get_weather(city: str) -> str:
        """Current weather for a city.

        Args:
            city: the city
        """
        return weather(city)

    def user(text):
        return [{"role": "user", "content": [{"type": "text", "text": text}]}]

    def agent(h, tools):
        return ToolCallingAgent(tools=tools, model=model(h), max_steps=4, verbosity_level=0)

    def plain(h):
        said = model(h).generate(user("What is 2+2?")).content
        return "4" in said, said

    def tool_name(h):
        added.clear()
        said = agent(h, [add_contact]).run(CONTACT_TEXT)
        return added == ["Ada Lovelace"], f"{added} / {said}"

    def stream(h):
        parts = [d.content or "" for d in model(h).generate_stream(user("Say hello briefly."))]
        return bool("".join(parts)), "".join(parts)

    def structured(h):
        schema = {"name": "Weather", "schema": Weather.model_json_schema(), "strict": True}
        said = model(h).generate(
            user(WEATHER_TEXT), response_format={"type": "json_schema", "json_schema": schema}
        )
        return _weather_ok(Weather.model_validate_json(said.content))

    def loop(h):
        said = str(agent(h, [get_weather]).run(LOOP_TEXT))
        return "Paris" in said and "Tokyo" in said, said

    run("smolagents", "plain", plain)
    run("smolagents", "tool_name", tool_name)
    run("smolagents", "stream", stream)
    run("smolagents", "structured", structured)
    run("smolagents", "tool_loop", loop)


# -- langgraph's prebuilt create_react_agent with ChatAnthropic ----------------------------------


def langgraph_checks() -> None:
    import warnings

    from langchain_anthropic import ChatAnthropic
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
    from langchain_core.tools import tool as lc_tool
    from langgraph.prebuilt import create_react_agent

    warnings.filterwarnings("ignore", category=DeprecationWarning)
    added: list[str] = []

    @lc_tool
    def add_contact(name: str, email: str) -> str:
        """Add a person to the address book."""
        added.append(name)
        return f"added {name}"

    @lc_tool
    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return weather(city)

    def agent(h, tools, **kwargs):
        chat = ChatAnthropic(
            model=MODEL, base_url=URL, api_key=KEY, default_headers=h, max_tokens=400
        )
        return create_react_agent(chat, tools, **kwargs)

    def last_text(state) -> str:
        return state["messages"][-1].text

    def plain(h):
        said = last_text(agent(h, []).invoke({"messages": [HumanMessage("What is 2+2?")]}))
        return "4" in said, said

    def tool_name(h):
        added.clear()
        said = last_text(agent(h, [add_contact]).invoke({"messages": [HumanMessage(CONTACT_TEXT)]}))
        return added == ["Ada Lovelace"], f"{added} / {said}"

    def stream(h):
        parts = [
            chunk.text
            for chunk, _ in agent(h, []).stream(
                {"messages": [HumanMessage("Say hello in one short sentence.")]},
                stream_mode="messages",
            )
        ]
        return bool("".join(parts)), "".join(parts)

    def structured(h):
        state = agent(h, [get_weather], response_format=Weather).invoke(
            {"messages": [HumanMessage(WEATHER_TEXT)]}
        )
        return _weather_ok(state["structured_response"])

    def loop(h):
        said = last_text(agent(h, [get_weather]).invoke({"messages": [HumanMessage(LOOP_TEXT)]}))
        return "Paris" in said and "Tokyo" in said, said

    def system_after_results(h):
        call = {"name": "get_weather", "args": {"city": "Paris"}, "id": "toolu_01PreviousCall"}
        history = [
            HumanMessage("What's the weather in Paris?"),
            AIMessage("", tool_calls=[call]),
            ToolMessage(weather("Paris"), tool_call_id=call["id"]),
            SystemMessage(TOKENS_LEFT),
        ]
        said = last_text(agent(h, [get_weather]).invoke({"messages": history}))
        return "18" in said, said

    run("langgraph", "plain", plain)
    run("langgraph", "tool_name", tool_name)
    run("langgraph", "stream", stream)
    run("langgraph", "structured", structured)
    run("langgraph", "tool_loop", loop)
    run("langgraph", "system_after_results", system_after_results)


# -- dspy (LM through litellm, anthropic/ prefix) ------------------------------------------------


def dspy_checks() -> None:
    import dspy
    from dspy.signatures.signature import make_signature

    def lm(h):
        return dspy.LM(
            f"anthropic/{MODEL}",
            api_base=URL,
            api_key=KEY,
            max_tokens=400,
            extra_headers=h,
            cache=False,
            num_retries=0,
        )

    def add_contact(name: str, email: str) -> str:
        """Add a person to the address book."""
        return f"added {name}"

    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return weather(city)

    # Built from fields, not class bodies: this module's postponed annotations are strings,
    # which dspy's signatures do not resolve.
    add_contact_signature = make_signature(
        {
            "request": (str, dspy.InputField()),
            "tools": (list[dspy.Tool], dspy.InputField()),
            "outputs": (dspy.ToolCalls, dspy.OutputField()),
        },
        "Add the person the request names to the address book.",
    )
    report_signature = make_signature(
        {"text": (str, dspy.InputField()), "report": (Weather, dspy.OutputField())},
        "Turn the text into a weather report.",
    )
    # The chat format alone: dspy's fallback to its JSON adapter sends litellm's retired
    # `output_format` (structured_json shows that request on its own).
    chat = dspy.ChatAdapter(use_json_adapter_fallback=False)

    def plain(h):
        with dspy.context(lm=lm(h), adapter=chat):
            said = dspy.Predict("question -> answer")(question="What is 2+2?").answer
        return "4" in said, said

    def tool_name(h):
        adapter = dspy.ChatAdapter(
            use_native_function_calling=True, use_json_adapter_fallback=False
        )
        with dspy.context(lm=lm(h), adapter=adapter):
            r = dspy.Predict(add_contact_signature)(
                request=CONTACT_TEXT, tools=[dspy.Tool(add_contact)]
            )
        calls = r.outputs.tool_calls
        ok = bool(calls) and calls[0].name == "add_contact"
        return ok and calls[0].args.get("name") == "Ada Lovelace", calls

    async def stream(h):
        listener = dspy.streaming.StreamListener(signature_field_name="answer")
        program = dspy.streamify(dspy.Predict("question -> answer"), stream_listeners=[listener])
        parts, final = [], None
        with dspy.context(lm=lm(h), adapter=chat):
            async for chunk in program(question="Say hello in one short sentence."):
                if isinstance(chunk, dspy.streaming.StreamResponse):
                    parts.append(chunk.chunk)
                elif isinstance(chunk, dspy.Prediction):
                    final = chunk
        return bool("".join(parts)) and final is not None, "".join(parts)

    def structured(h, adapter):
        with dspy.context(lm=lm(h), adapter=adapter):
            return _weather_ok(dspy.Predict(report_signature)(text=WEATHER_TEXT).report)

    def loop(h):
        with dspy.context(lm=lm(h), adapter=chat):
            r = dspy.ReAct("question -> answer", tools=[get_weather], max_iters=4)(
                question=LOOP_TEXT
            )
        return "Paris" in r.answer and "Tokyo" in r.answer, r.answer

    run("dspy", "plain", plain)
    run("dspy", "tool_name", tool_name)
    run("dspy", "stream", stream)
    run("dspy", "structured_chat", lambda h: structured(h, chat))
    run("dspy", "structured_json", lambda h: structured(h, dspy.JSONAdapter()))
    run("dspy", "tool_loop", loop)


# -- haystack (AnthropicChatGenerator, anthropic-haystack) ---------------------------------------


def haystack_checks() -> None:
    from haystack.components.agents import Agent
    from haystack.dataclasses import ChatMessage, ToolCall
    from haystack.tools import create_tool_from_function
    from haystack.utils import Secret
    from haystack_integrations.components.generators.anthropic import AnthropicChatGenerator

    # The generator takes no base URL: the Anthropic client it builds reads ANTHROPIC_BASE_URL,
    # which run.py sets to the course model's.
    assert os.environ.get("ANTHROPIC_BASE_URL") == URL

    def add_contact(name: str, email: str) -> str:
        """Add a person to the address book."""
        return f"added {name}"

    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return weather(city)

    contact_tool = create_tool_from_function(add_contact)
    weather_tool = create_tool_from_function(get_weather)

    def generator(h, **kwargs):
        settings = {"max_tokens": 400, "extra_headers": h, **kwargs.pop("settings", {})}
        return AnthropicChatGenerator(
            api_key=Secret.from_token(KEY), model=MODEL, generation_kwargs=settings, **kwargs
        )

    def plain(h):
        said = generator(h).run(messages=[ChatMessage.from_user("What is 2+2?")])
        said = said["replies"][0].text
        return "4" in said, said

    def tool_name(h):
        forced = {"tool_choice": {"type": "tool", "name": "add_contact"}}
        reply = generator(h, tools=[contact_tool], settings=forced).run(
            messages=[ChatMessage.from_user(CONTACT_TEXT)]
        )["replies"][0]
        args = reply.tool_calls[0].arguments
        return args.get("name") == "Ada Lovelace", args

    def stream(h):
        parts: list[str] = []
        generator(h, streaming_callback=lambda chunk: parts.append(chunk.content or "")).run(
            messages=[ChatMessage.from_user("Say hello in one short sentence.")]
        )
        return bool("".join(parts)), "".join(parts)

    def structured(h):
        schema = Weather.model_json_schema() | {"additionalProperties": False}
        fmt = {"output_config": {"format": {"type": "json_schema", "schema": schema}}}
        said = generator(h, settings=fmt).run(messages=[ChatMessage.from_user(WEATHER_TEXT)])
        return _weather_ok(Weather.model_validate_json(said["replies"][0].text))

    def loop(h):
        agent = Agent(chat_generator=generator(h), tools=[weather_tool], max_agent_steps=6)
        said = agent.run(messages=[ChatMessage.from_user(LOOP_TEXT)])["messages"][-1].text
        return "Paris" in said and "Tokyo" in said, said

    def system_after_results(h):
        call = ToolCall(tool_name="get_weather", arguments={"city": "Paris"}, id="toolu_01Earlier")
        history = [
            ChatMessage.from_user("What's the weather in Paris?"),
            ChatMessage.from_assistant(tool_calls=[call]),
            ChatMessage.from_tool(weather("Paris"), origin=call),
            ChatMessage.from_system(TOKENS_LEFT),
        ]
        said = generator(h, tools=[weather_tool]).run(messages=history)["replies"][0].text
        return "18" in said, said

    run("haystack", "plain", plain)
    run("haystack", "tool_name", tool_name)
    run("haystack", "stream", stream)
    run("haystack", "structured", structured)
    run("haystack", "tool_loop", loop)
    run("haystack", "system_after_results", system_after_results)


# -- google-adk (LlmAgent with LiteLlm, anthropic/ prefix) ---------------------------------------


def adk_checks() -> None:
    from google.adk.agents import LlmAgent
    from google.adk.agents.run_config import RunConfig, StreamingMode
    from google.adk.models.lite_llm import LiteLlm
    from google.adk.runners import InMemoryRunner
    from google.genai import types

    added: list[str] = []

    def add_contact(name: str, email: str) -> str:
        """Add a person to the address book."""
        added.append(name)
        return f"added {name}"

    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return weather(city)

    async def ask(h, prompt, stream=False, **kwargs):
        model = LiteLlm(
            model=f"anthropic/{MODEL}", api_base=URL, api_key=KEY, extra_headers=h, max_tokens=400
        )
        agent = LlmAgent(name="helper", model=model, **kwargs)
        runner = InMemoryRunner(agent=agent, app_name="checks")
        session = await runner.session_service.create_session(app_name="checks", user_id="u")
        config = RunConfig(streaming_mode=StreamingMode.SSE if stream else StreamingMode.NONE)
        message = types.Content(role="user", parts=[types.Part(text=prompt)])
        final, partial = "", []
        async for event in runner.run_async(
            user_id="u", session_id=session.id, new_message=message, run_config=config
        ):
            parts = event.content.parts if event.content else []
            texts = [p.text for p in parts if p.text and not p.thought]  # thinking left out
            if event.partial:
                partial += texts
            elif event.is_final_response():
                final = "".join(texts)
        return final, "".join(partial)

    async def plain(h):
        said, _ = await ask(h, "What is 2+2?")
        return "4" in said, said

    async def tool_name(h):
        added.clear()
        said, _ = await ask(h, CONTACT_TEXT, tools=[add_contact])
        return added == ["Ada Lovelace"], f"{added} / {said}"

    async def stream(h):
        said, parts = await ask(h, "Say hello in one short sentence.", stream=True)
        return bool(parts) and bool(said), f"{len(parts)} parts: {said}"

    async def structured(h):
        said, _ = await ask(h, WEATHER_TEXT, output_schema=Weather)
        return _weather_ok(Weather.model_validate_json(said))

    async def loop(h):
        said, _ = await ask(h, LOOP_TEXT, tools=[get_weather])
        return "Paris" in said and "Tokyo" in said, said

    run("google-adk", "plain", plain)
    run("google-adk", "tool_name", tool_name)
    run("google-adk", "stream", stream)
    run("google-adk", "structured", structured)
    run("google-adk", "tool_loop", loop)


# -- mirascope (v2: llm.call, the Anthropic provider registered with base_url) -------------------


def mirascope_checks() -> None:
    import anthropic
    from mirascope import llm
    from mirascope.llm.providers.anthropic import beta_provider, provider

    name = f"anthropic/{MODEL}"

    def use(h):
        # The documented way to another endpoint: register a provider with `base_url` (a new
        # instance each check: one registered by its id is cached). The clients it builds take
        # no headers, so the check's header is added to them.
        for module in (provider, beta_provider):
            module.Anthropic = functools.partial(anthropic.Anthropic, default_headers=h)
            module.AsyncAnthropic = functools.partial(anthropic.AsyncAnthropic, default_headers=h)
        fresh = provider.AnthropicProvider(api_key=KEY, base_url=URL)
        llm.register_provider(fresh, scope="anthropic/")

    added: list[str] = []

    @llm.tool
    def add_contact(name: str, email: str) -> str:
        """Add a person to the address book."""
        added.append(name)
        return f"added {name}"

    @llm.tool
    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return weather(city)

    def caller(**kwargs):
        @llm.call(name, max_tokens=400, **kwargs)
        def ask(question: str) -> str:
            return question

        return ask

    def until_answered(response):
        for _ in range(6):
            if not response.tool_calls:
                return response.text()
            response = response.resume(response.execute_tools())
        return "no answer after 6 turns"

    def plain(h):
        use(h)
        said = caller()("What is 2+2?").text()
        return "4" in said, said

    def tool_name(h):
        use(h)
        added.clear()
        said = until_answered(caller(tools=[add_contact])(CONTACT_TEXT))
        return added == ["Ada Lovelace"], f"{added} / {said}"

    def stream(h):
        use(h)
        said = "".join(caller().stream("Say hello in one short sentence.").text_stream())
        return bool(said), said

    def structured(h, mode):
        use(h)
        out = caller(format=llm.format(Weather, mode=mode))(WEATHER_TEXT).parse()
        return _weather_ok(out)

    def loop(h):
        use(h)
        said = until_answered(caller(tools=[get_weather])(LOOP_TEXT))
        return "Paris" in said and "Tokyo" in said, said

    def retry(h):
        use(h)
        tries: list[str] = []
        response = caller(format=llm.format(_checked_contact(tries), mode="tool"))(CONTACT_TEXT)
        out, _ = response.validate(max_retries=1)
        return len(tries) == 2 and out.name == "Ada Lovelace", f"{len(tries)} tries: {out}"

    run("mirascope", "plain", plain)
    run("mirascope", "tool_name", tool_name)
    run("mirascope", "stream", stream)
    for mode in ("strict", "tool", "json"):
        run("mirascope", f"structured_{mode}", lambda h, m=mode: structured(h, m))
    run("mirascope", "tool_loop", loop)
    run("mirascope", "validation_retry", retry)


FRAMEWORKS = {
    "strands-agents": strands_checks,
    "agno": agno_checks,
    "llm-anthropic": llm_checks,
    "smolagents": smolagents_checks,
    "langgraph": langgraph_checks,
    "dspy": dspy_checks,
    "haystack": haystack_checks,
    "google-adk": adk_checks,
    "mirascope": mirascope_checks,
}
