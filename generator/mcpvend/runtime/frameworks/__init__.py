"""Adapters into agent frameworks; each module imports its framework, and is imported only when asked for."""
