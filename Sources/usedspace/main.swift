import CLinux
import UsedSpaceClient
import UsedSpaceSystem

exit(UsedSpaceCLI.main(ProcessEnvironment.arguments))
