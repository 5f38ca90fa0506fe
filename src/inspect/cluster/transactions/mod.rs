//! Transactions as a stopped broker's disk holds them: each transactional
//! id's latest state in `__transaction_state` (`TransactionStateManager`'s
//! load), the transactions left open in the data partitions with the last
//! stable offset they hold back (`ProducerStateManager`), and which of
//! those hang, by `kafka-transactions.sh find-hanging`'s rule
//! (`TransactionsCommand`), with the arguments its `abort` needs.

pub mod coordinator;
pub mod coverage;
pub mod filter;
pub mod hanging;
pub mod open;
