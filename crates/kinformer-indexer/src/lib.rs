//! The thread-safe store with named indexes, key functions and listers.
