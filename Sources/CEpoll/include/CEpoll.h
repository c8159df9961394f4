#ifndef HITROUTE_CEPOLL_H
#define HITROUTE_CEPOLL_H
// Exposes epoll and eventfd to Swift: Glibc's module map does not export them.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

/// `accept4(2)`, which Glibc only declares under _GNU_SOURCE (so Swift's
/// Glibc module does not export it). Defined in CEpoll.c.
int cepoll_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);

/// Names the calling thread (`pthread_setname_np`, also GNU-only); at most
/// 15 bytes are kept. Defined in CEpoll.c.
void cepoll_set_thread_name(const char *name);

/// The epoll event bits as plain integers (glibc declares them as an enum).
static const unsigned int CEPOLL_IN = EPOLLIN;
static const unsigned int CEPOLL_OUT = EPOLLOUT;
static const unsigned int CEPOLL_ERR = EPOLLERR;
static const unsigned int CEPOLL_HUP = EPOLLHUP;
static const unsigned int CEPOLL_RDHUP = EPOLLRDHUP;
#endif
