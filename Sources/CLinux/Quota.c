#define _GNU_SOURCE
#include "CLinuxQuota.h"
#include <errno.h>
#include <linux/btrfs.h>
#include <linux/btrfs_tree.h>
#include <linux/fs.h>
#include <linux/quota.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_quotactl_fd
#define SYS_quotactl_fd 443
#endif

int clinux_btrfs_subvolume_id(int fd, uint64_t *id) {
    struct btrfs_ioctl_ino_lookup_args args;
    memset(&args, 0, sizeof args);
    args.treeid = 0;
    args.objectid = BTRFS_FIRST_FREE_OBJECTID;
    if (ioctl(fd, BTRFS_IOC_INO_LOOKUP, &args) < 0) return -1;
    *id = args.treeid;
    return 0;
}

int clinux_project_id(int fd, uint32_t *id) {
    struct fsxattr attributes;
    memset(&attributes, 0, sizeof attributes);
    if (ioctl(fd, FS_IOC_FSGETXATTR, &attributes) < 0) return -1;
    *id = attributes.fsx_projid;
    return 0;
}

int clinux_get_quota(int fd, int type, uint32_t id, uint8_t *answer, int size) {
    struct if_dqblk block;
    if (size < (int)sizeof block) {
        errno = EINVAL;
        return -1;
    }
    memset(&block, 0, sizeof block);
    if (syscall(SYS_quotactl_fd, fd, QCMD(Q_GETQUOTA, type), id, &block) < 0) return -1;
    memcpy(answer, &block, sizeof block);
    return 0;
}
