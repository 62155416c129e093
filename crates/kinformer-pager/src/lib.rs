//! Continue-token paging over any Lister, with client-go's full-list fallback on an expired token.
