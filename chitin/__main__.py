from chitin.cli import main

main()
