"""The CLI's commands, by stage; `cli.py` puts them on the `mcpvend` group in pipeline order."""
