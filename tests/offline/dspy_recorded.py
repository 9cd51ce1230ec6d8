"""Request bodies dspy 3.4 sent (ChatAdapter, litellm), recorded against the course model:
ReAct with one tool, `get_weather`, asked "What's the weather in Paris and in Tokyo?" (its
three steps and its answer), and `Predict` with fields typed int, float, bool, list, dict and
a Literal."""
# ruff: noqa: E501

WEATHER_STEP_0 = {
    "model": "claude-haiku-5-5",
    "messages": [
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": "[[ ## question ## ]]\n"
                    "What's the weather in Paris and in Tokyo?\n"
                    "\n"
                    "[[ ## trajectory ## ]]\n"
                    "\n"
                    "\n"
                    "Respond with the corresponding output fields, starting with "
                    "the field `[[ ## next_thought ## ]]`, then `[[ ## "
                    "next_tool_name ## ]]` (must be formatted as a valid Python "
                    "Literal['get_weather', 'finish']), then `[[ ## next_tool_args "
                    "## ]]` (must be formatted as a valid Python dict[str, Any]), "
                    "and then ending with the marker for `[[ ## completed ## "
                    "]]`.",
                }
            ],
        }
    ],
    "stream": False,
    "max_tokens": 400,
    "system": "Your input fields are:\n"
    "1. `question` (str): \n"
    "2. `trajectory` (str):\n"
    "Your output fields are:\n"
    "1. `next_thought` (str): \n"
    "2. `next_tool_name` (Literal['get_weather', 'finish']): \n"
    "3. `next_tool_args` (dict[str, Any]):\n"
    "All interactions will be structured in the following way, with the appropriate values "
    "filled in.\n"
    "\n"
    "[[ ## question ## ]]\n"
    "{question}\n"
    "\n"
    "[[ ## trajectory ## ]]\n"
    "{trajectory}\n"
    "\n"
    "[[ ## next_thought ## ]]\n"
    "{next_thought}\n"
    "\n"
    "[[ ## next_tool_name ## ]]\n"
    "{next_tool_name}        # note: the value you produce must exactly match (no extra "
    "characters) one of: get_weather; finish\n"
    "\n"
    "[[ ## next_tool_args ## ]]\n"
    "{next_tool_args}        # note: the value you produce must adhere to the JSON schema: "
    '{"type": "object", "additionalProperties": true}\n'
    "\n"
    "[[ ## completed ## ]]\n"
    "In adhering to this structure, your objective is: \n"
    "        Given the fields `question`, produce the fields `answer`.\n"
    "        \n"
    "        You are an Agent. In each episode, you will be given the fields `question` as "
    "input. And you can see your past trajectory so far.\n"
    "        Your goal is to use one or more of the supplied tools to collect any necessary "
    "information for producing `answer`.\n"
    "        \n"
    "        To do this, you will interleave next_thought, next_tool_name, and "
    "next_tool_args in each turn, and also when finishing the task.\n"
    "        After each tool call, you receive a resulting observation, which gets appended "
    "to your trajectory.\n"
    "        \n"
    "        When writing next_thought, you may reason about the current situation and plan "
    "for future steps.\n"
    "        When selecting the next_tool_name and its next_tool_args, the tool must be one "
    "of:\n"
    "        \n"
    "        (1) get_weather, whose description is <desc>Current weather for a "
    "city.</desc>. It takes arguments {'city': {'type': 'string'}}.\n"
    "        (2) finish, whose description is <desc>Marks the task as complete. That is, "
    "signals that all information for producing the outputs, i.e. `answer`, are now "
    "available to be extracted.</desc>. It takes arguments {}.\n"
    "        When providing `next_tool_args`, the value inside the field must be in JSON "
    "format",
}

WEATHER_STEP_1 = {
    "model": "claude-haiku-5-5",
    "messages": [
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": "[[ ## question ## ]]\n"
                    "What's the weather in Paris and in Tokyo?\n"
                    "\n"
                    "[[ ## trajectory ## ]]\n"
                    "[[ ## thought_0 ## ]]\n"
                    "I need get_weather for this.\n"
                    "\n"
                    "[[ ## tool_name_0 ## ]]\n"
                    "get_weather\n"
                    "\n"
                    "[[ ## tool_args_0 ## ]]\n"
                    '{"city": "Paris"}\n'
                    "\n"
                    "[[ ## observation_0 ## ]]\n"
                    "Sunny, 18 C in Paris\n"
                    "\n"
                    "Respond with the corresponding output fields, starting with "
                    "the field `[[ ## next_thought ## ]]`, then `[[ ## "
                    "next_tool_name ## ]]` (must be formatted as a valid Python "
                    "Literal['get_weather', 'finish']), then `[[ ## next_tool_args "
                    "## ]]` (must be formatted as a valid Python dict[str, Any]), "
                    "and then ending with the marker for `[[ ## completed ## "
                    "]]`.",
                }
            ],
        }
    ],
    "stream": False,
    "max_tokens": 400,
    "system": "Your input fields are:\n"
    "1. `question` (str): \n"
    "2. `trajectory` (str):\n"
    "Your output fields are:\n"
    "1. `next_thought` (str): \n"
    "2. `next_tool_name` (Literal['get_weather', 'finish']): \n"
    "3. `next_tool_args` (dict[str, Any]):\n"
    "All interactions will be structured in the following way, with the appropriate values "
    "filled in.\n"
    "\n"
    "[[ ## question ## ]]\n"
    "{question}\n"
    "\n"
    "[[ ## trajectory ## ]]\n"
    "{trajectory}\n"
    "\n"
    "[[ ## next_thought ## ]]\n"
    "{next_thought}\n"
    "\n"
    "[[ ## next_tool_name ## ]]\n"
    "{next_tool_name}        # note: the value you produce must exactly match (no extra "
    "characters) one of: get_weather; finish\n"
    "\n"
    "[[ ## next_tool_args ## ]]\n"
    "{next_tool_args}        # note: the value you produce must adhere to the JSON schema: "
    '{"type": "object", "additionalProperties": true}\n'
    "\n"
    "[[ ## completed ## ]]\n"
    "In adhering to this structure, your objective is: \n"
    "        Given the fields `question`, produce the fields `answer`.\n"
    "        \n"
    "        You are an Agent. In each episode, you will be given the fields `question` as "
    "input. And you can see your past trajectory so far.\n"
    "        Your goal is to use one or more of the supplied tools to collect any necessary "
    "information for producing `answer`.\n"
    "        \n"
    "        To do this, you will interleave next_thought, next_tool_name, and "
    "next_tool_args in each turn, and also when finishing the task.\n"
    "        After each tool call, you receive a resulting observation, which gets appended "
    "to your trajectory.\n"
    "        \n"
    "        When writing next_thought, you may reason about the current situation and plan "
    "for future steps.\n"
    "        When selecting the next_tool_name and its next_tool_args, the tool must be one "
    "of:\n"
    "        \n"
    "        (1) get_weather, whose description is <desc>Current weather for a "
    "city.</desc>. It takes arguments {'city': {'type': 'string'}}.\n"
    "        (2) finish, whose description is <desc>Marks the task as complete. That is, "
    "signals that all information for producing the outputs, i.e. `answer`, are now "
    "available to be extracted.</desc>. It takes arguments {}.\n"
    "        When providing `next_tool_args`, the value inside the field must be in JSON "
    "format",
}

WEATHER_STEP_2 = {
    "model": "claude-haiku-5-5",
    "messages": [
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": "[[ ## question ## ]]\n"
                    "What's the weather in Paris and in Tokyo?\n"
                    "\n"
                    "[[ ## trajectory ## ]]\n"
                    "[[ ## thought_0 ## ]]\n"
                    "I need get_weather for this.\n"
                    "\n"
                    "[[ ## tool_name_0 ## ]]\n"
                    "get_weather\n"
                    "\n"
                    "[[ ## tool_args_0 ## ]]\n"
                    '{"city": "Paris"}\n'
                    "\n"
                    "[[ ## observation_0 ## ]]\n"
                    "Sunny, 18 C in Paris\n"
                    "\n"
                    "[[ ## thought_1 ## ]]\n"
                    "I need get_weather for this.\n"
                    "\n"
                    "[[ ## tool_name_1 ## ]]\n"
                    "get_weather\n"
                    "\n"
                    "[[ ## tool_args_1 ## ]]\n"
                    '{"city": "Tokyo"}\n'
                    "\n"
                    "[[ ## observation_1 ## ]]\n"
                    "Sunny, 18 C in Tokyo\n"
                    "\n"
                    "Respond with the corresponding output fields, starting with "
                    "the field `[[ ## next_thought ## ]]`, then `[[ ## "
                    "next_tool_name ## ]]` (must be formatted as a valid Python "
                    "Literal['get_weather', 'finish']), then `[[ ## next_tool_args "
                    "## ]]` (must be formatted as a valid Python dict[str, Any]), "
                    "and then ending with the marker for `[[ ## completed ## "
                    "]]`.",
                }
            ],
        }
    ],
    "stream": False,
    "max_tokens": 400,
    "system": "Your input fields are:\n"
    "1. `question` (str): \n"
    "2. `trajectory` (str):\n"
    "Your output fields are:\n"
    "1. `next_thought` (str): \n"
    "2. `next_tool_name` (Literal['get_weather', 'finish']): \n"
    "3. `next_tool_args` (dict[str, Any]):\n"
    "All interactions will be structured in the following way, with the appropriate values "
    "filled in.\n"
    "\n"
    "[[ ## question ## ]]\n"
    "{question}\n"
    "\n"
    "[[ ## trajectory ## ]]\n"
    "{trajectory}\n"
    "\n"
    "[[ ## next_thought ## ]]\n"
    "{next_thought}\n"
    "\n"
    "[[ ## next_tool_name ## ]]\n"
    "{next_tool_name}        # note: the value you produce must exactly match (no extra "
    "characters) one of: get_weather; finish\n"
    "\n"
    "[[ ## next_tool_args ## ]]\n"
    "{next_tool_args}        # note: the value you produce must adhere to the JSON schema: "
    '{"type": "object", "additionalProperties": true}\n'
    "\n"
    "[[ ## completed ## ]]\n"
    "In adhering to this structure, your objective is: \n"
    "        Given the fields `question`, produce the fields `answer`.\n"
    "        \n"
    "        You are an Agent. In each episode, you will be given the fields `question` as "
    "input. And you can see your past trajectory so far.\n"
    "        Your goal is to use one or more of the supplied tools to collect any necessary "
    "information for producing `answer`.\n"
    "        \n"
    "        To do this, you will interleave next_thought, next_tool_name, and "
    "next_tool_args in each turn, and also when finishing the task.\n"
    "        After each tool call, you receive a resulting observation, which gets appended "
    "to your trajectory.\n"
    "        \n"
    "        When writing next_thought, you may reason about the current situation and plan "
    "for future steps.\n"
    "        When selecting the next_tool_name and its next_tool_args, the tool must be one "
    "of:\n"
    "        \n"
    "        (1) get_weather, whose description is <desc>Current weather for a "
    "city.</desc>. It takes arguments {'city': {'type': 'string'}}.\n"
    "        (2) finish, whose description is <desc>Marks the task as complete. That is, "
    "signals that all information for producing the outputs, i.e. `answer`, are now "
    "available to be extracted.</desc>. It takes arguments {}.\n"
    "        When providing `next_tool_args`, the value inside the field must be in JSON "
    "format",
}

WEATHER_ANSWER = {
    "model": "claude-haiku-5-5",
    "messages": [
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": "[[ ## question ## ]]\n"
                    "What's the weather in Paris and in Tokyo?\n"
                    "\n"
                    "[[ ## trajectory ## ]]\n"
                    "[[ ## thought_0 ## ]]\n"
                    "I need get_weather for this.\n"
                    "\n"
                    "[[ ## tool_name_0 ## ]]\n"
                    "get_weather\n"
                    "\n"
                    "[[ ## tool_args_0 ## ]]\n"
                    '{"city": "Paris"}\n'
                    "\n"
                    "[[ ## observation_0 ## ]]\n"
                    "Sunny, 18 C in Paris\n"
                    "\n"
                    "[[ ## thought_1 ## ]]\n"
                    "I need get_weather for this.\n"
                    "\n"
                    "[[ ## tool_name_1 ## ]]\n"
                    "get_weather\n"
                    "\n"
                    "[[ ## tool_args_1 ## ]]\n"
                    '{"city": "Tokyo"}\n'
                    "\n"
                    "[[ ## observation_1 ## ]]\n"
                    "Sunny, 18 C in Tokyo\n"
                    "\n"
                    "[[ ## thought_2 ## ]]\n"
                    "I have what I need to answer.\n"
                    "\n"
                    "[[ ## tool_name_2 ## ]]\n"
                    "finish\n"
                    "\n"
                    "[[ ## tool_args_2 ## ]]\n"
                    "{}\n"
                    "\n"
                    "[[ ## observation_2 ## ]]\n"
                    "Completed.\n"
                    "\n"
                    "Respond with the corresponding output fields, starting with "
                    "the field `[[ ## reasoning ## ]]`, then `[[ ## answer ## ]]`, "
                    "and then ending with the marker for `[[ ## completed ## "
                    "]]`.",
                }
            ],
        }
    ],
    "stream": False,
    "max_tokens": 400,
    "system": "Your input fields are:\n"
    "1. `question` (str): \n"
    "2. `trajectory` (str):\n"
    "Your output fields are:\n"
    "1. `reasoning` (str): \n"
    "2. `answer` (str):\n"
    "All interactions will be structured in the following way, with the appropriate values "
    "filled in.\n"
    "\n"
    "[[ ## question ## ]]\n"
    "{question}\n"
    "\n"
    "[[ ## trajectory ## ]]\n"
    "{trajectory}\n"
    "\n"
    "[[ ## reasoning ## ]]\n"
    "{reasoning}\n"
    "\n"
    "[[ ## answer ## ]]\n"
    "{answer}\n"
    "\n"
    "[[ ## completed ## ]]\n"
    "In adhering to this structure, your objective is: \n"
    "        Given the fields `question`, produce the fields `answer`.",
}

TYPED_FIELDS = {
    "model": "claude-haiku-5-5",
    "messages": [
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": "[[ ## question ## ]]\n"
                    "Give me numbers.\n"
                    "\n"
                    "Respond with the corresponding output fields, starting with "
                    "the field `[[ ## count ## ]]` (must be formatted as a valid "
                    "Python int), then `[[ ## ratio ## ]]` (must be formatted as a "
                    "valid Python float), then `[[ ## ok ## ]]` (must be formatted "
                    "as a valid Python bool), then `[[ ## items ## ]]` (must be "
                    "formatted as a valid Python list[str]), then `[[ ## info ## "
                    "]]` (must be formatted as a valid Python dict[str, int]), and "
                    "then ending with the marker for `[[ ## completed ## ]]`.",
                }
            ],
        }
    ],
    "stream": False,
    "max_tokens": 400,
    "system": "Your input fields are:\n"
    "1. `question` (str):\n"
    "Your output fields are:\n"
    "1. `count` (int): \n"
    "2. `ratio` (float): \n"
    "3. `ok` (bool): \n"
    "4. `items` (list[str]): \n"
    "5. `info` (dict[str, int]):\n"
    "All interactions will be structured in the following way, with the appropriate values "
    "filled in.\n"
    "\n"
    "[[ ## question ## ]]\n"
    "{question}\n"
    "\n"
    "[[ ## count ## ]]\n"
    "{count}        # note: the value you produce must be a single int value\n"
    "\n"
    "[[ ## ratio ## ]]\n"
    "{ratio}        # note: the value you produce must be a single float value\n"
    "\n"
    "[[ ## ok ## ]]\n"
    "{ok}        # note: the value you produce must be True or False\n"
    "\n"
    "[[ ## items ## ]]\n"
    '{items}        # note: the value you produce must adhere to the JSON schema: {"type": '
    '"array", "items": {"type": "string"}}\n'
    "\n"
    "[[ ## info ## ]]\n"
    '{info}        # note: the value you produce must adhere to the JSON schema: {"type": '
    '"object", "additionalProperties": {"type": "integer"}}\n'
    "\n"
    "[[ ## completed ## ]]\n"
    "In adhering to this structure, your objective is: \n"
    "        Given the fields `question`, produce the fields `count`, `ratio`, `ok`, "
    "`items`, `info`.",
}

CHOICE_FIELD = {
    "model": "claude-haiku-5-5",
    "messages": [
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": "[[ ## question ## ]]\n"
                    "How risky is it to leave 3 windows open?\n"
                    "\n"
                    "Respond with the corresponding output fields, starting with "
                    "the field `[[ ## level ## ]]` (must be formatted as a valid "
                    "Python Literal['low', 'high']), then `[[ ## count ## ]]` "
                    "(must be formatted as a valid Python int), and then ending "
                    "with the marker for `[[ ## completed ## ]]`.",
                }
            ],
        }
    ],
    "stream": False,
    "max_tokens": 400,
    "system": "Your input fields are:\n"
    "1. `question` (str):\n"
    "Your output fields are:\n"
    "1. `level` (Literal['low', 'high']): \n"
    "2. `count` (int):\n"
    "All interactions will be structured in the following way, with the appropriate values "
    "filled in.\n"
    "\n"
    "[[ ## question ## ]]\n"
    "{question}\n"
    "\n"
    "[[ ## level ## ]]\n"
    "{level}        # note: the value you produce must exactly match (no extra characters) "
    "one of: low; high\n"
    "\n"
    "[[ ## count ## ]]\n"
    "{count}        # note: the value you produce must be a single int value\n"
    "\n"
    "[[ ## completed ## ]]\n"
    "In adhering to this structure, your objective is: \n"
    "        Rate the risk.",
}
