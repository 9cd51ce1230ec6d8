"""Course machinery (exercise checks): checks for notebook 02, Describe tools.

Requirements, one per line (each proven both ways in
tests/exercise_variants/test_02_describe_tools.py):

`check_tool_schema(definition)`, the hand-written `convert_currency` definition:
- a dict with `name`, `description`, `input_schema` (not `parameters`/`schema`);
- the name follows the API's rule and is `convert_currency`;
- a description of 12 words or more that says what the tool returns ("returns", "gives") and
  its limits ("only", "not", "knows", "fails", "unknown", the four codes named, "fixed rates");
- `input_schema` is a valid JSON Schema object (`type: object`) with the properties `amount`,
  `source` and `target`, judged by what it accepts and refuses, never by how it is written
  (`enum`, `const` options in `anyOf`/`oneOf`, `$ref` to `$defs`, a type list all pass when they
  mean the same):
  - amount: every number passes (12.5, 0.5, 100, 2500000.75, 0, 12.345); text ('ten',
    '12.5'), null, true, a list or an object do not; `minimum: 0` is accepted, nothing that
    refuses 0 or a third decimal (`exclusiveMinimum: 0`, `multipleOf: 0.01`) is;
  - source and target: each of the four codes passes; any other value ('XYZ', 'CHF', 'eur',
    'dollars', '', 1, null, and 'EURO', 'XUSD', 'eurEUR' for an unanchored pattern) does not;
  - arguments without any one of the three do not pass (all three required);
  - other properties may be allowed or refused (`additionalProperties: false`);
- the course model accepts the definition in a request.

`check_currency_tool(tool)`, the same tool from a typed function with `@tool`:
- a `Tool`, with a description as above (12 words or more, what it returns, its limits) and
  the arguments amount, source, target, all three required (no default);
- source and target limited to the four codes in the schema;
- good arguments give the converted amount at the exercise's rates (12.5 and 0.5 EUR to USD,
  100 GBP to JPY): amount is a `number` (not an `integer`, not a string), its cents are kept,
  and no rate is the learner's own;
- an amount of 0 or less and an unknown code are refused by the signature, before the
  function runs (a check inside the function is not enough).

`check_forced_call(force_call)`, `force_call(client, question, model)`, on
claude-haiku-5-5, claude-sonnet-5-5 and claude-opus-5-5:
- the request uses the `model` given and offers convert_currency;
- on a model that accepts a forced tool_choice: the call is forced (`{"type": "tool", "name":
  "convert_currency"}`, or `{"type": "any"}` when convert_currency is the only tool), and the
  response returned holds the tool_use;
- on a model that rejects it: the request that counts does not force (auto or no tool_choice,
  not none), and the response returned holds a convert_currency call: the course model follows
  an instruction that tells it to call the tool (in `system` or in the question) and refuses to
  call when told not to, so an instruction that names the tool the wrong way round fails;
  trying the forced call first and falling back after the 400 is accepted;
- the function returns the Message, not None or an error.

The checks' code, one job a module:

- `schema`: exercise 02.1, `check_tool_schema`: a definition written by hand, judged by what its
  schema accepts.
- `currency_tool`: exercise 02.2, `check_currency_tool`: the same tool from a typed function with
  @tool.
- `description`: what a tool's description must say, and how a schema's properties are read.
- `forced`: exercise 02.3, `check_forced_call`: a call forced where the model allows it, asked for
  where not.
"""

from __future__ import annotations

from course_helpers.exercise_checks.describe_tools.currency_tool import check_currency_tool
from course_helpers.exercise_checks.describe_tools.forced import check_forced_call
from course_helpers.exercise_checks.describe_tools.schema import CURRENCIES, check_tool_schema

__all__ = ["check_tool_schema", "check_currency_tool", "check_forced_call", "CURRENCIES"]
