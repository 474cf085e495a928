"""Development support shared by tests/ and bench/ (a local stack, a fake edge-tts
service). Not part of the installed service."""
