from ptofuzz.entry import main

main()
