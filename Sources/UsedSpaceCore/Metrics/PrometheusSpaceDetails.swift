/// The Prometheus families beyond df's numbers: a fast fill while one is flagged, and a btrfs
/// filesystem's allocation (named after node_exporter's btrfs collector, which reads the same
/// sysfs files, with `usedspace_` in front and our labels).
extension PrometheusTextRenderer {
    static func spaceDetailFamilies(_ snapshots: [Snapshot]) -> [Family] {
        var families: [Family] = [
            Family(name: "usedspace_fast_fill_bytes_per_second",
                   help: "How fast the available space is going while a fast fill is flagged (docs/fast-fill.md); absent otherwise."),
            Family(name: "usedspace_fast_fill_seconds_to_full", help: "When the filesystem is full at the rate of the fast fill; absent without one."),
            Family(name: "usedspace_quota_used_bytes",
                   help: "What counts against a quota that leaves less room than the filesystem (kind=btrfs-referenced|btrfs-exclusive|user|group|project); absent without one."),
            Family(name: "usedspace_quota_limit_bytes", help: "The limit of that quota (its hard limit, else its soft one)."),
            Family(name: "usedspace_btrfs_device_size_bytes", help: "Size of the btrfs filesystem's devices together."),
            Family(name: "usedspace_btrfs_unallocated_bytes", help: "Device space no chunk has been allocated from (btrfs filesystem usage's Device unallocated)."),
            Family(name: "usedspace_btrfs_allocated_bytes", help: "Device space allocated to chunks, every copy counted, by block group type."),
            Family(name: "usedspace_btrfs_size_bytes", help: "Logical size of the chunks, by block group type."),
            Family(name: "usedspace_btrfs_used_bytes", help: "Bytes used in the chunks, by block group type."),
            Family(name: "usedspace_btrfs_allocation_ratio", help: "Device bytes per logical byte (1 single, 2 DUP or RAID1), by block group type."),
            Family(name: "usedspace_btrfs_global_rsv_size_bytes", help: "The global reserve, kept back in the metadata."),
            Family(name: "usedspace_btrfs_metadata_can_grow", help: "1 while a new metadata chunk still fits in the unallocated space, else 0."),
            Family(name: "usedspace_btrfs_metadata_state", help: "0 ok, 1 low (cannot grow, under 25 % free), 2 full (cannot grow, under 10 % free): ENOSPC ahead whatever df shows."),
        ]
        for snapshot in snapshots {
            let labels = seriesLabels(snapshot)
            if let fill = snapshot.fastFill, snapshot.state == .fresh {
                families[0].series.append((labels, String(fill.bytesPerSecond)))
                families[1].series.append((labels, String(fill.secondsToFull)))
            }
            if let quota = snapshot.quota {
                let kind = labels + ",kind=\"\(quota.kind.rawValue)\""
                families[2].series.append((kind, String(quota.usedBytes)))
                families[3].series.append((kind, String(quota.limitBytes)))
            }
            guard let btrfs = snapshot.btrfs else { continue }
            families[4].series.append((labels, String(btrfs.deviceBytes)))
            families[5].series.append((labels, String(btrfs.unallocatedBytes)))
            let kinds: [(String, BtrfsAllocation.Chunks)] = btrfs.isMixed
                ? [("mixed", btrfs.data), ("system", btrfs.system)]
                : [("data", btrfs.data), ("metadata", btrfs.metadata), ("system", btrfs.system)]
            for (kind, chunks) in kinds {
                let typed = labels + ",block_group_type=\"\(kind)\""
                families[6].series.append((typed, String(chunks.diskTotalBytes)))
                families[7].series.append((typed, String(chunks.totalBytes)))
                families[8].series.append((typed, String(chunks.usedBytes)))
                if let ratio = chunks.ratio { families[9].series.append((typed, ratio.description)) }
            }
            families[10].series.append((labels, String(btrfs.globalReserveBytes)))
            families[11].series.append((labels, btrfs.metadataCanGrow ? "1" : "0"))
            families[12].series.append((labels, String(btrfs.metadataLevel.severityRank)))
        }
        return families
    }
}
