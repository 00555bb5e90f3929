"""Training and validation of the guard's learned detector (never run in CI; see scripts/train-guard)."""
