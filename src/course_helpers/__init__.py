"""Helpers for the course "The Agent Loop, built step by step".

Small on purpose: each module does one job and can be read in one sitting.
"""

from course_helpers.client import MODEL, banner, detect_backend, make_async_client, make_client

__all__ = ["MODEL", "banner", "detect_backend", "make_async_client", "make_client"]
