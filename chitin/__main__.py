from chitin.console import main

main()
