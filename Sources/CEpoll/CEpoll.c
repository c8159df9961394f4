// accept4 is a GNU extension: define the feature macro before any include.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "CEpoll.h"

int cepoll_accept4(int fd, void *addr, void *len, int flags) {
    return accept4(fd, (struct sockaddr *)addr, (socklen_t *)len, flags);
}

int cepoll_affinity_count(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
    return CPU_COUNT(&set);
}

int cepoll_pin_to_first_cpu(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

void cepoll_set_thread_name(const char *name) {
    char shortName[16];
    strncpy(shortName, name, 15);
    shortName[15] = 0;
    pthread_setname_np(pthread_self(), shortName);
}

/// Where `cepoll_on_signal` writes, by signal number: set before the
/// signal's handler is installed.
#define CEPOLL_MAX_SIGNAL 65
static volatile sig_atomic_t cepoll_signal_fds[CEPOLL_MAX_SIGNAL];
static volatile sig_atomic_t cepoll_signal_fds_ready = 0;

/// Adds 1 to the signal's eventfd (write(2) is async-signal-safe), keeping errno.
static void cepoll_on_signal(int number) {
    int saved = errno;
    if (number > 0 && number < CEPOLL_MAX_SIGNAL && cepoll_signal_fds[number] >= 0) {
        uint64_t one = 1;
        ssize_t written = write(cepoll_signal_fds[number], &one, sizeof one);
        (void)written;
    }
    errno = saved;
}

int cepoll_forward_signal(int number, int eventfd) {
    if (number <= 0 || number >= CEPOLL_MAX_SIGNAL) {
        errno = EINVAL;
        return -1;
    }
    if (!cepoll_signal_fds_ready) {
        for (int i = 0; i < CEPOLL_MAX_SIGNAL; i++) cepoll_signal_fds[i] = -1;
        cepoll_signal_fds_ready = 1;
    }
    cepoll_signal_fds[number] = eventfd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = cepoll_on_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    return sigaction(number, &action, NULL);
}
