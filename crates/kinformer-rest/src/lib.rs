//! The REST client: kubeconfig and in-cluster config, TLS, auth, rate limiting, retries, typed requests and watch decoding.
