#ifndef HITROUTE_CEPOLL_H
#define HITROUTE_CEPOLL_H
// Exposes epoll and eventfd to Swift: Glibc's module map does not export them.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif
