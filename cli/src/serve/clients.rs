//! The connections of each client address: at most `--max-client-connections`
//! open at once, so that one client cannot take every connection slot.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

/// The open connections of every client address with any.
pub struct Clients {
    open: Mutex<HashMap<IpAddr, usize>>,
    max: usize,
}

/// One open connection of a client; its count goes down when dropped.
pub struct Slot {
    clients: Arc<Clients>,
    ip: IpAddr,
}

impl Clients {
    /// At most `max` connections per address.
    pub fn new(max: usize) -> Arc<Clients> {
        Arc::new(Clients {
            open: Mutex::new(HashMap::new()),
            max,
        })
    }

    /// A slot for one more connection of `ip`, or `None` when it holds
    /// `max` already.
    pub fn take(self: &Arc<Self>, ip: IpAddr) -> Option<Slot> {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let n = open.entry(ip).or_insert(0);
        if *n >= self.max {
            return None;
        }
        *n += 1;
        Some(Slot {
            clients: Arc::clone(self),
            ip,
        })
    }

    /// The connections `ip` holds.
    #[cfg(test)]
    fn count(&self, ip: IpAddr) -> usize {
        let open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        open.get(&ip).copied().unwrap_or(0)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.clients.open.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = open.get_mut(&self.ip) {
            *n -= 1;
            // An address with no connection left takes no memory.
            if *n == 0 {
                open.remove(&self.ip);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_address_has_its_own_limit_and_a_closed_connection_frees_its_slot() {
        let clients = Clients::new(2);
        let a: IpAddr = "127.0.0.1".parse().unwrap();
        let b: IpAddr = "::1".parse().unwrap();
        let first = clients.take(a).expect("a's first");
        let second = clients.take(a).expect("a's second");
        assert!(clients.take(a).is_none(), "a holds its two");
        let other = clients.take(b).expect("b is not a");
        drop(first);
        assert_eq!(clients.count(a), 1);
        let third = clients.take(a).expect("a slot was freed");
        drop((second, third, other));
        assert!(clients.open.lock().unwrap().is_empty(), "no address left");
    }
}
