"""memmaint.optimize: Optuna tuning of reduction and clustering under a precision floor."""
