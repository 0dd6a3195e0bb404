// The floor: no argument parsing at all, only Glibc. `status` and any options are ignored.
import Glibc
import StatProbe

exit(StatProbe.report(path: StatProbe.home(), details: false, json: false))
