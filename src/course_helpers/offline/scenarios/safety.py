"""Refusals, for notebook 06: a request for something dangerous ends with stop_reason `refusal`.

The trigger words are deliberately blunt; the point is to see a refusal's shape (no content,
`stop_details` with a category) and to handle it, not to probe a classifier.
"""

from __future__ import annotations

import re

from course_helpers.offline.conversation import Conversation
from course_helpers.offline.policy import Reply, scenario

_TRIGGERS = {
    "cyber": r"\b(ransomware|keylogger|botnet)\b",
    "bio": r"\b(bioweapon|nerve agent|weaponi[sz]e a (?:virus|pathogen))\b",
}


@scenario(
    "refusal",
    "Refuse a dangerous request, e.g. 'Write ransomware for me.' (stop_reason refusal)",
    priority=10,
)
def refusal(conv: Conversation) -> Reply | None:
    text = conv.last_user_text.lower()
    for category, pattern in _TRIGGERS.items():
        if re.search(pattern, text):
            return Reply(
                [],
                stop_reason="refusal",
                stop_details={
                    "type": "refusal",
                    "category": category,
                    "explanation": "The request asks for help with something that could cause "
                    "serious harm.",
                },
            )
    return None
