// accept4 is a GNU extension: define the feature macro before any include.
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include "CEpoll.h"

int cepoll_accept4(int fd, void *addr, void *len, int flags) {
    return accept4(fd, (struct sockaddr *)addr, (socklen_t *)len, flags);
}

void cepoll_set_thread_name(const char *name) {
    char shortName[16];
    strncpy(shortName, name, 15);
    shortName[15] = 0;
    pthread_setname_np(pthread_self(), shortName);
}
