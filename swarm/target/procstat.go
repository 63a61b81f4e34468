package target

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ProcessStat is what one stdio server process (with the processes it
// started, such as node under npx) used, read from Linux's /proc at the
// end of a run.
type ProcessStat struct {
	PID int
	// RSSKB is the resident memory now and PeakRSSKB its high-water mark
	// (VmRSS, VmHWM), in KiB, summed over the process and its descendants.
	RSSKB, PeakRSSKB int64
	// CPUSeconds is the user and system CPU time it has used, summed the
	// same way.
	CPUSeconds float64
}

// clockTicks is the unit of /proc/PID/stat's CPU times: USER_HZ, 100 on
// every Linux architecture Go supports (reading it needs sysconf, and so
// cgo).
const clockTicks = 100

// readProcessStats reads the stats of each pid and its descendants; a pid
// that cannot be read (no /proc: not Linux, or it just exited) is left out.
func readProcessStats(pids []int) []ProcessStat {
	if len(pids) == 0 {
		return nil
	}
	children := childrenByParent()
	var out []ProcessStat
	for _, pid := range pids {
		st, ok := procStat(pid)
		if !ok {
			continue
		}
		st.PID = pid
		// The descendants, breadth first; seen guards against a pid
		// reused while the table was read.
		seen := map[int]bool{pid: true}
		queue := append([]int(nil), children[pid]...)
		for len(queue) > 0 && len(seen) < 1024 {
			c := queue[0]
			queue = queue[1:]
			if seen[c] {
				continue
			}
			seen[c] = true
			if cs, ok := procStat(c); ok {
				st.RSSKB += cs.RSSKB
				st.PeakRSSKB += cs.PeakRSSKB
				st.CPUSeconds += cs.CPUSeconds
			}
			queue = append(queue, children[c]...)
		}
		out = append(out, st)
	}
	return out
}

// procStat reads one process's memory (status) and CPU time (stat).
func procStat(pid int) (ProcessStat, bool) {
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	stat, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return ProcessStat{}, false
	}
	fields, ok := statFields(stat)
	if !ok || len(fields) < 13 {
		return ProcessStat{}, false
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return ProcessStat{}, false
	}
	st := ProcessStat{CPUSeconds: float64(utime+stime) / clockTicks}
	status, err := os.ReadFile(filepath.Join(dir, "status"))
	if err != nil {
		return ProcessStat{}, false
	}
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			continue
		}
		switch k {
		case "VmRSS":
			st.RSSKB = kb
		case "VmHWM":
			st.PeakRSSKB = kb
		}
	}
	return st, true
}

// statFields are the fields of /proc/PID/stat after the command name
// (which may hold spaces and parentheses): fields[0] is the state,
// fields[1] the parent's pid, fields[11] and [12] utime and stime.
func statFields(stat []byte) ([]string, bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return nil, false
	}
	return strings.Fields(string(stat[i+1:])), true
}

// childrenByParent maps each pid to its children, from every process's
// stat (nil without /proc).
func childrenByParent() map[int][]int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		fields, ok := statFields(stat)
		if !ok || len(fields) < 2 {
			continue
		}
		if ppid, err := strconv.Atoi(fields[1]); err == nil {
			out[ppid] = append(out[ppid], pid)
		}
	}
	return out
}
