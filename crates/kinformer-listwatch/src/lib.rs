//! ListWatch: a Lister and Watcher for one resource type, built from a REST Getter.
