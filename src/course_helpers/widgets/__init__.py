"""Course machinery: the notebook widgets.

LoopStepper     one turn of your loop per click (notebook 04)
ApprovalPanel   Approve or Deny buttons for an agent's dangerous calls (notebooks 07 and 08)
"""

from course_helpers.widgets.approval_buttons import ApprovalPanel
from course_helpers.widgets.loop_stepper import LoopStepper

__all__ = ["ApprovalPanel", "LoopStepper"]
