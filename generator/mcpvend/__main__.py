from mcpvend.cli import main

main()
