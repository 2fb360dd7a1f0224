from ptofuzz.cli import main

main()
