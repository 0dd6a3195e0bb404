import Glibc
import UsedSpaceClient

exit(UsedSpaceCLI.main(CommandLine.arguments))
