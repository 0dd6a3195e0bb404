import CLinux
import UsedSpaceDaemon
import UsedSpaceSystem

exit(UsedSpaceDaemon.main(ProcessEnvironment.arguments))
