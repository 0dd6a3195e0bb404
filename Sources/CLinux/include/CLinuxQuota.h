// What a quota reader asks the kernel, for the calling user and without privileges: the
// btrfs subvolume a file is in, its project id, and quotactl_fd(2)'s Q_GETQUOTA answer.
// Only plain C types cross this header.
#pragma once
#include <stdint.h>

/// The id of the btrfs subvolume (tree) holding the open file `fd`: BTRFS_IOC_INO_LOOKUP with
/// objectid BTRFS_FIRST_FREE_OBJECTID, which Linux answers without CAP_SYS_ADMIN (4.18+).
/// 0, or -1 with errno set (ENOTTY off btrfs).
int clinux_btrfs_subvolume_id(int fd, uint64_t *id);

/// The project id of the open file `fd` (FS_IOC_FSGETXATTR's fsx_projid): 0, or -1 with errno.
int clinux_project_id(int fd, uint32_t *id);

/// quotactl_fd(2) Q_GETQUOTA of `type` (0 user, 1 group, 2 project) for `id` on the
/// filesystem of `fd`, the raw `struct if_dqblk` copied into `answer` (`size` bytes, at
/// least 72). 0, or -1 with errno set (ESRCH: quotas are off; ENOSYS: before Linux 5.14).
int clinux_get_quota(int fd, int type, uint32_t id, uint8_t *answer, int size);
