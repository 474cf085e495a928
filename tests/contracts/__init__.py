"""Contract suites: one set of tests a port's every adapter must pass, run by a module per
backend (tests/unit/adapters/test_*_memory.py, tests/integration/redis/test_*.py), as
kombu's t/integration runs one suite per transport."""
