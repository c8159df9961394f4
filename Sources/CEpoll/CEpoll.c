// accept4 is a GNU extension: define the feature macro before any include.
#define _GNU_SOURCE
#include <sys/socket.h>
#include "CEpoll.h"

int cepoll_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
    return accept4(fd, addr, len, flags);
}
