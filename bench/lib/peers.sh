# The peers the daemon benchmarks measure against, the same in every script.
# shellcheck shell=bash

# i3status_config FILE PATH: i3status with one disk block on PATH, `interval = 1`, as a bar
# runs it (i3bar's output format, no colours).
i3status_config() {
    cat >"$1" <<EOC
general {
    output_format = "i3bar"
    colors = false
    interval = 1
}
order += "disk $2"
disk "$2" {
    format = "%percentage_used"
}
EOC
}
