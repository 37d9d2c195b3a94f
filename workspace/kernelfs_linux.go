package workspace

import (
	"io/fs"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// kernelMagic names the kernel file systems (statfs f_type) that are never
// a folder of notes.
var kernelMagic = map[int64]string{
	unix.PROC_SUPER_MAGIC:    "/proc (procfs)",
	unix.SYSFS_MAGIC:         "/sys (sysfs)",
	unix.DEVPTS_SUPER_MAGIC:  "/dev/pts (devpts)",
	unix.CGROUP_SUPER_MAGIC:  "cgroupfs",
	unix.CGROUP2_SUPER_MAGIC: "cgroupfs",
	unix.DEBUGFS_MAGIC:       "debugfs",
	unix.TRACEFS_MAGIC:       "tracefs",
	unix.SECURITYFS_MAGIC:    "securityfs",
	unix.BPF_FS_MAGIC:        "bpffs",
	unix.EFIVARFS_MAGIC:      "efivarfs",
	unix.PSTOREFS_MAGIC:      "pstore",
}

// devFS is the device of the file system mounted on /dev (devtmpfs; its
// statfs type is plain tmpfs, so it is told by its device), if /dev is a
// mount of its own.
var devFS = sync.OnceValues(func() (uint64, bool) {
	dev, err := os.Stat("/dev")
	if err != nil {
		return 0, false
	}
	root, err := os.Stat("/")
	if err != nil {
		return 0, false
	}
	d, ok := idOf(dev)
	r, ok2 := idOf(root)
	if !ok || !ok2 || d.dev == r.dev {
		return 0, false
	}
	return d.dev, true
})

// kernelFS names the kernel file system the open folder f (whose
// information is fi) lies on, or "". /dev/shm, a tmpfs of its own, is not
// one.
func kernelFS(f *os.File, fi fs.FileInfo) string {
	var st unix.Statfs_t
	err := unix.Fstatfs(int(f.Fd()), &st)
	return kernelName(err, &st, fi)
}

// kernelFSAt is kernelFS for the folder at path p (for listings only: a
// path can change meanwhile).
func kernelFSAt(p string, fi fs.FileInfo) string {
	var st unix.Statfs_t
	err := unix.Statfs(p, &st)
	return kernelName(err, &st, fi)
}

func kernelName(err error, st *unix.Statfs_t, fi fs.FileInfo) string {
	if err == nil {
		if name := kernelMagic[int64(st.Type)]; name != "" { //nolint:unconvert // Type is int32 on some platforms
			return name
		}
	}
	if dev, ok := devFS(); ok {
		if id, ok := idOf(fi); ok && id.dev == dev {
			return "/dev (devtmpfs)"
		}
	}
	return ""
}
