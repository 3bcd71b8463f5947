/* Both halves of the CPU-cache channels of the channel benchmark (benchmarks/channels.py), as
 * one command bot in C: `cache send|receive flush|counter|own|vdso|prime START`.
 *
 * flush: flush+reload on lines of libc, which every sandbox maps from the machine's one image
 *   of system files (arena/hosts/view.py), so the lines are the same physical memory in both
 *   bots. The receiver times a reload of each of WIDTH lines at its decision (rdtscp) and
 *   flushes them (clflush) at its end; the sender, holding its dice, touches the lines whose
 *   bit is 1. A fast reload is a 1.
 * own: the same on lines of the program's own file, of which each bot is shown a private
 *   copy (the control: what a private copy of the image per bot would leave of flush).
 * counter: flush on libc's lines, but the receiver refuses itself rdtsc (prctl PR_SET_TSC,
 *   as a sandbox could) and times with a thread that counts in a loop on the other CPU.
 * vdso: the same on lines of the vDSO's code, which the kernel maps into every process.
 * prime: prime+probe without shared memory, coarse: one bit. The receiver reads its own
 *   PROBE-byte buffer at the end of each decision and times reading it again at its next;
 *   the sender, for a 1, sweeps SWEEP bytes of its own memory. A slow probe (above the
 *   median of the probes so far) is a 1.
 *
 * `cache tsc` refuses itself rdtsc and reads the clock through the vDSO.
 * `cache sweep MIB` prints how long one sweep of MIB MiB takes, in milliseconds (the median of 5).
 *
 * Each decision writes `SENT <monotonic time> <bits>` or `HEARD <monotonic time> <bits>` (`-`
 * when nothing was there to read) to stderr, as benchmarks/channels/sender.py does; it plays
 * the lowest claim, challenges a claim, rerolls nothing.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <time.h>
#include <x86intrin.h>

#define FLUSH_WIDTH 64
#define LINE 64
#define PROBE (24u << 20)
#define SWEEP (512u << 20)
#define MAX_LINE (1 << 20)

static int sending, flushing, width = FLUSH_WIDTH;
static long start;
static unsigned count;
static volatile uint8_t *lines[FLUSH_WIDTH];
static uint64_t cut;            /* cycles: a reload below is a hit */
static int flushed;             /* the receiver flushed (or primed) at its last decision */
static uint8_t *own;            /* prime: the receiver's buffer, or the sender's sweep */
static uint64_t probes[100000];
static int probed;

/* The monotonic clock through the system call, not the vDSO, whose lines carry a channel. */
static double monotonic(void) {
    struct timespec t;
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* counter: rdtsc is refused (prctl PR_SET_TSC), and a thread of its own on CPU 1 that counts
 * in a loop is the clock instead. */
static volatile uint64_t ticks;
static int counting;

static void *count_forever(void *unused) {
    uint64_t counted = 0;
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    CPU_SET(1, &cpus);
    sched_setaffinity(0, sizeof cpus, &cpus);
    for (;;)
        ticks = ++counted;
    return unused;
}

static void count_instead_of_rdtsc(void) {
    pthread_t thread;
    if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV) != 0)
        perror("PR_SET_TSC");
    counting = 1;
    pthread_create(&thread, NULL, count_forever, NULL);
    while (ticks < 1000000)
        ;
}

static uint64_t now(void) {
    unsigned aux;
    return counting ? ticks : __rdtscp(&aux);
}

static uint64_t timed_read(volatile uint8_t *p) {
    (void)*(volatile uint8_t *)(((uintptr_t)p & ~(uintptr_t)2047) + 31 * LINE);
    /* the page's address in the TLB first, from a line of its own pair no bit uses: a
       page walk (two-level under a hypervisor) costs as much as a miss */
    _mm_mfence();
    uint64_t began = now();
    (void)*p;
    _mm_lfence();
    uint64_t took = now() - began;
    return took;
}

static int by_value(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t median(uint64_t *values, int n) {
    qsort(values, (size_t)n, sizeof *values, by_value);
    return values[n / 2];
}

/* The midpoint between a hit and a miss on a line of its own memory, in cycles. (A hit in
 * the shared cache alone is not worth calibrating on here: a line pushed out of a core's 2 MiB
 * L2 by an 8 MiB sweep times as a miss, 378 against 396 cycles.) */
static uint64_t calibrate(void) {
    static uint8_t line[4096];
    uint64_t hit[301], miss[301];
    for (int i = 0; i < 301; i++) {
        line[128] = (uint8_t)i;
        _mm_clflush(&line[128]);
        miss[i] = timed_read(&line[128]);
        hit[i] = timed_read(&line[128]);
    }
    uint64_t h = median(hit, 301), m = median(miss, 301);
    fprintf(stderr, "CALIBRATED hit %lu miss %lu cycles\n", (unsigned long)h, (unsigned long)m);
    return (h + m) / 2;
}

/* Where the section NAME of the ELF file at FILE lies: its offset and size (0 if none). */
static size_t section(const uint8_t *file, const char *name, size_t *size) {
    const Elf64_Ehdr *elf = (const Elf64_Ehdr *)file;
    const Elf64_Shdr *sections = (const Elf64_Shdr *)(file + elf->e_shoff);
    const char *names = (const char *)file + sections[elf->e_shstrndx].sh_offset;
    for (int i = 0; i < elf->e_shnum; i++)
        if (!strcmp(names + sections[i].sh_name, name)) {
            *size = sections[i].sh_size;
            return sections[i].sh_offset;
        }
    *size = 0;
    return 0;
}

/* The path of libc, as this process loaded it. */
static const char *libc_path(void) {
    Dl_info info;
    if (!dladdr((void *)&fprintf, &info) || !info.dli_fname) {
        fprintf(stderr, "no libc found\n");
        exit(1);
    }
    return info.dli_fname;
}

/* WIDTH lines of the section NAME of the file at PATH, mapped read-only, at most two to a
 * page, 2 KiB apart, each the first of its pair of lines (the adjacent-line prefetcher loads
 * lines in pairs), placed by START. For libc, its unwinding tables (.eh_frame: read only when
 * a C++ exception or a backtrace unwinds, so no other process reloads them). */
static void map_lines(const char *path, const char *name) {
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        perror(path);
        exit(1);
    }
    uint8_t *file = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    if (file == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    size_t size, offset = section(file, name, &size);
    size_t first = (offset + 4095) / 4096, pages = (offset + size) / 4096 - first;
    if (pages * 2 < FLUSH_WIDTH) {
        fprintf(stderr, "%s's %s has %zu pages, too few\n", path, name, pages);
        exit(1);
    }
    for (size_t i = 0; i < FLUSH_WIDTH; i++) {
        size_t page = first + (i + (size_t)start) % pages, half = (i / pages) % 2;
        lines[i] = file + page * 4096 + half * 2048
                   + 2 * ((i * 13 + (size_t)start) % 15) * LINE;
    }
    fprintf(stderr, "LINES of %s: %zu pages of %s from %zu\n", path, pages, name, first);
}

/* What the `own` channel's lines lie in: 256 KiB of the program's own file, which the
 * sandbox copies for each bot process (its own files), as a private image would libc. */
__attribute__((section(".channel"), used)) static const uint8_t own_pages[256 << 10] = {1};

/* Where the vDSO's function NAME lies: its offset and size (0 if none). */
static size_t vdso_function(const uint8_t *vdso, const char *name, size_t *size) {
    size_t symbols_size, symbols = section(vdso, ".dynsym", &symbols_size), names_size;
    const char *names = (const char *)vdso + section(vdso, ".dynstr", &names_size);
    for (size_t at = symbols; at + sizeof(Elf64_Sym) <= symbols + symbols_size;
         at += sizeof(Elf64_Sym)) {
        const Elf64_Sym *symbol = (const Elf64_Sym *)(vdso + at);
        if (!strcmp(names + symbol->st_name, name)) {
            *size = symbol->st_size;
            return symbol->st_value;
        }
    }
    *size = 0;
    return 0;
}

/* The first line of each pair of lines of the vDSO's code, up to WIDTH, but those of
 * clock_gettime, which every process of the machine runs all the time: the kernel maps the
 * same physical page into every process, sandbox or not, so no private copy of files takes
 * it away. The last pair of each half page is left to warm the TLB with. */
static void map_vdso_lines(void) {
    uint8_t *vdso = (uint8_t *)getauxval(AT_SYSINFO_EHDR);
    size_t size, offset = vdso ? section(vdso, ".text", &size) : 0, busy_size = 0;
    size_t busy = vdso ? vdso_function(vdso, "__vdso_clock_gettime", &busy_size) : 0;
    width = 0;
    for (size_t at = (offset + 127) & ~(size_t)127; at + LINE <= offset + size
         && width < FLUSH_WIDTH; at += 2 * LINE)
        if ((at % 2048) / LINE != 30 && (at + 2 * LINE <= busy || at >= busy + busy_size))
            lines[width++] = vdso + at;
    fprintf(stderr, "LINES of the vDSO's code: %d\n", width);
}

static uint32_t hash(const char *text) {
    uint32_t h = 2166136261u;
    for (; *text; text++)
        h = (h ^ (uint8_t)*text) * 16777619u;
    h ^= h >> 15;
    h *= 0x2c1b3c6dU;
    h ^= h >> 12;
    return h;
}

static void bits_of_hand(const char *hand, int width, char *bits) {
    char text[256];
    for (int word = 0; word * 32 < width; word++) {
        snprintf(text, sizeof text, "%.200s#%u#%d", hand, count, word);
        uint32_t h = hash(text);
        for (int i = 0; i < 32 && word * 32 + i < width; i++)
            bits[word * 32 + i] = (char)('0' + ((h >> i) & 1));
    }
    bits[width] = 0;
}

static void sweep(uint8_t *buffer, size_t size) {
    for (size_t i = 0; i < size; i += LINE)
        buffer[i]++;
}

static uint64_t probe(void) {
    volatile uint8_t *b = own;
    uint8_t sum = 0;
    _mm_mfence();
    uint64_t began = now();
    for (size_t i = 0; i < PROBE; i += LINE)
        sum += b[i];
    uint64_t took = now() - began;
    own[0] = sum;
    return took;
}

static void send(const char *hand) {
    int offered = flushing ? width : 1;
    char bits[FLUSH_WIDTH + 1];
    count++;
    bits_of_hand(hand, offered, bits);
    if (flushing) {
        for (int n = 0; n < width; n++) {
            int i = (n * 37) % width;
            if (bits[i] == '1')
                (void)*lines[i];
        }
    } else if (bits[0] == '1') {
        sweep(own, SWEEP);
    }
    fprintf(stderr, "SENT %.6f %s\n", monotonic(), bits);
}

static void receive(void) {
    char bits[FLUSH_WIDTH + 1] = "-";
    if (flushing && flushed) {
        for (int n = 0; n < width; n++) {
            int i = (n * 37) % width; /* out of order, or the prefetchers load ahead */
            bits[i] = timed_read(lines[i]) < cut ? '1' : '0';
        }
        bits[width] = 0;
    } else if (flushed) {
        uint64_t took = probe(), sorted[100000];
        probes[probed++ % 100000] = took;
        int n = probed < 100000 ? probed : 100000;
        memcpy(sorted, probes, (size_t)n * sizeof *sorted);
        bits[0] = took > median(sorted, n) ? '1' : '0';
        bits[1] = 0;
        fprintf(stderr, "PROBE %lu cycles\n", (unsigned long)took);
    }
    fprintf(stderr, "HEARD %.6f %s\n", monotonic(), bits);
    if (flushing) {
        for (int i = 0; i < width; i++)
            _mm_clflush((const void *)lines[i]);
        _mm_mfence();
    } else {
        sweep(own, PROBE);
    }
    flushed = 1;
}

/* The string value of "key":"..." in the line, or "" (null or absent). */
static void field(const char *line, const char *key, char *out, size_t size) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    const char *at = strstr(line, pattern);
    out[0] = 0;
    if (!at)
        return;
    at += strlen(pattern);
    size_t n = strcspn(at, "\"");
    if (n >= size)
        n = size - 1;
    memcpy(out, at, n);
    out[n] = 0;
}

static void act(const char *line) {
    char decision[32], claim[64];
    long turn = strtol(strstr(line, "\"turn\":") + 7, NULL, 10);
    const char *hand = strstr(line, "\"hand\":[");
    field(line, "decision", decision, sizeof decision);
    field(line, "min_claim", claim, sizeof claim);
    if (sending && hand) {
        char dice[128];
        size_t n = strcspn(hand + 8, "]");
        snprintf(dice, sizeof dice, "%.*s", (int)(n < 100 ? n : 100), hand + 8);
        send(dice);
    } else if (!sending) {
        receive();
    }
    fflush(stderr);
    if (!strcmp(decision, "claim"))
        printf("{\"type\":\"action\",\"turn\":%ld,\"action\":{\"type\":\"bid\",\"claim\":\"%s\"}}\n",
               turn, claim);
    else if (!strcmp(decision, "reroll"))
        printf("{\"type\":\"action\",\"turn\":%ld,\"action\":{\"type\":\"reroll\",\"positions\":[]}}\n",
               turn);
    else if (!strcmp(decision, "choose"))
        printf("{\"type\":\"action\",\"turn\":%ld,\"action\":{\"type\":\"choose\",\"seat\":%ld}}\n",
               turn, strtol(strstr(line, "\"seats\":[") + 9, NULL, 10));
    else
        printf("{\"type\":\"action\",\"turn\":%ld,\"action\":{\"type\":\"challenge\"}}\n", turn);
}

/* What closing the channels by sweeping the cache between two bots' decisions would cost: the
 * median time of 5 sweeps (one read a line) of a buffer of MIB MiB, the last-level cache's
 * size, already in memory. */
static int time_sweeps(long mib) {
    size_t size = (size_t)mib << 20;
    uint8_t *buffer = malloc(size);
    uint64_t took[5];
    if (!buffer)
        return 1;
    memset(buffer, 1, size);
    for (int i = 0; i < 5; i++) {
        double began = monotonic();
        sweep(buffer, size);
        took[i] = (uint64_t)((monotonic() - began) * 1e6);
    }
    printf("%.1f\n", (double)median(took, 5) / 1e3);
    return 0;
}

/* Both halves run on CPU 0 (they never run at once: a bot is frozen while not asked), so the
 * lines the sender touched are in the very core's L1 and L2 the receiver reads through. On
 * two CPUs a line crosses from the other core's L2, which on this virtual machine timed as a
 * miss in some runs (its two CPUs then on cores far apart): 1.5 bits a decision against 45. */
static void pin_to_cpu_zero(void) {
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    CPU_SET(0, &cpus);
    if (sched_setaffinity(0, sizeof cpus, &cpus) != 0)
        perror("sched_setaffinity");
}

/* Whether the vDSO's clock_gettime still works once rdtsc is refused: it does not where the
 * clock source is the TSC (the process dies of SIGSEGV), so refusing rdtsc to a bot takes its
 * clock away too. */
static int clock_without_tsc(void) {
    struct timespec t;
    if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV) != 0) {
        perror("PR_SET_TSC");
        return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t);
    printf("clock_gettime works\n");
    return 0;
}

int main(int argc, char **argv) {
    static char line[MAX_LINE];
    char type[32];
    if (argc == 3 && !strcmp(argv[1], "sweep"))
        return time_sweeps(atol(argv[2]));
    if (argc == 2 && !strcmp(argv[1], "tsc"))
        return clock_without_tsc();
    if (argc < 4) {
        fprintf(stderr, "usage: cache send|receive flush|counter|own|vdso|prime START\n");
        return 2;
    }
    sending = !strcmp(argv[1], "send");
    flushing = strcmp(argv[2], "prime") != 0;
    start = atol(argv[3]);
    pin_to_cpu_zero();
    if (!strcmp(argv[2], "vdso"))
        map_vdso_lines();
    else if (!strcmp(argv[2], "own"))
        map_lines(access("/proc/self/exe", R_OK) == 0 ? "/proc/self/exe" : argv[0], ".channel");
    else if (flushing)
        map_lines(libc_path(), ".eh_frame");
    if (!strcmp(argv[2], "counter") && !sending)
        count_instead_of_rdtsc();
    if (flushing && !sending)
        cut = calibrate();
    else if (!flushing) {
        size_t size = sending ? SWEEP : PROBE;
        own = malloc(size);
        memset(own, 1, size);
    }
    while (fgets(line, sizeof line, stdin)) {
        field(line, "type", type, sizeof type);
        if (!strcmp(type, "hello"))
            printf("{\"type\":\"hello\",\"protocol\":2,\"name\":\"cache-%s\"}\n", argv[1]);
        else if (!strcmp(type, "start"))
            printf("{\"type\":\"ready\"}\n");
        else if (!strcmp(type, "act"))
            act(line);
        else if (!strcmp(type, "end"))
            printf("{\"type\":\"done\"}\n");
        else if (!strcmp(type, "shutdown"))
            return 0;
        fflush(stdout);
    }
    return 0;
}
