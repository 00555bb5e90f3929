"""Browser discovery and real-Chromium tests."""
