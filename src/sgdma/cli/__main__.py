from sgdma.cli import main

main()
