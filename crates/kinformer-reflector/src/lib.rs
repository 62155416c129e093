//! The reflector: list-then-watch into a Store with client-go's resourceVersion, relist and backoff rules.
