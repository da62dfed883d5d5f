/* What the kernel says about memory, for refusing a working set that would push the machine
 * into reclaim or the OOM killer before anything is allocated. */
#ifndef MFB_MEMINFO_H
#define MFB_MEMINFO_H

/* MemAvailable of /proc/meminfo in bytes; -1 when it cannot be read. */
long long mfb_mem_available(void);

#endif
