"""Real, unmodified Chromium browsers as the endpoints of `flowstate browser` runs."""
