#ifndef HITROUTE_CEPOLL_H
#define HITROUTE_CEPOLL_H
// Exposes epoll and eventfd to Swift: Glibc's module map does not export them.
#include <sys/epoll.h>
#include <sys/eventfd.h>
// malloc_trim and mallinfo2 (glibc), also missing from the Glibc module.
#include <malloc.h>

/// `accept4(2)`, which Glibc only declares under _GNU_SOURCE (so Swift's
/// Glibc module does not export it). `addr` is a `struct sockaddr *` and
/// `len` a `socklen_t *` (typed loosely so this header need not include
/// <sys/socket.h>, whose types belong to Swift's Glibc module). Defined in
/// CEpoll.c.
int cepoll_accept4(int fd, void *addr, void *len, int flags);

/// The CPUs in the calling thread's affinity mask (`sched_getaffinity`,
/// GNU-only), or -1 when it cannot be read. Defined in CEpoll.c.
int cepoll_affinity_count(void);

/// Restricts the calling thread to CPU 0 (`sched_setaffinity`); 0 on
/// success. For tests of the affinity count. Defined in CEpoll.c.
int cepoll_pin_to_first_cpu(void);

/// Names the calling thread (`pthread_setname_np`, also GNU-only); at most
/// 15 bytes are kept. Defined in CEpoll.c.
void cepoll_set_thread_name(const char *name);

/// Installs a handler for signal `number` (1…64) that adds 1 to `eventfd`
/// (an eventfd(2)), whichever thread the signal lands on. One fd per
/// signal: a later call for the same signal replaces it. 0, or -1 with
/// errno. Defined in CEpoll.c.
int cepoll_forward_signal(int number, int eventfd);

/// The epoll event bits as plain integers (glibc declares them as an enum).
static const unsigned int CEPOLL_IN = EPOLLIN;
static const unsigned int CEPOLL_OUT = EPOLLOUT;
static const unsigned int CEPOLL_ERR = EPOLLERR;
static const unsigned int CEPOLL_HUP = EPOLLHUP;
static const unsigned int CEPOLL_RDHUP = EPOLLRDHUP;
#endif
