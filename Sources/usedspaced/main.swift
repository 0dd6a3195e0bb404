import Glibc
import UsedSpaceDaemon

exit(UsedSpaceDaemon.main(CommandLine.arguments))
