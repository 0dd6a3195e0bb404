import CSystemd
