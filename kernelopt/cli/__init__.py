"""Command-line entry points (thin: compose config, build objects, call a task function)."""
