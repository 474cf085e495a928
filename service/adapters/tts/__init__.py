"""TTS engines behind the TtsEngine port; service/wiring.py chooses them."""
