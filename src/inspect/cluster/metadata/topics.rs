//! The image's topics ([`TopicImage`]) and their partitions
//! ([`PartitionImage`]), and their indexes: topics by id ([`Topics`]),
//! hashed, and a topic's partitions by id ([`Partitions`]), a vector, as
//! a replay looks a topic and a partition up at every partition record;
//! both list in id order, as Kafka's image and kseg's output have them.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// A partition's registration (`PartitionRegistration`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionImage {
    /// Replicas, in assignment order.
    pub replicas: Vec<i32>,
    /// In-sync replicas.
    pub isr: Vec<i32>,
    /// Replicas being removed by a reassignment.
    pub removing_replicas: Vec<i32>,
    /// Replicas being added by a reassignment.
    pub adding_replicas: Vec<i32>,
    /// The leader, -1 for none.
    pub leader: i32,
    /// 0 recovered, 1 recovering after an unclean election.
    pub leader_recovery_state: i8,
    /// The leader epoch.
    pub leader_epoch: i32,
    /// The partition epoch: one more at every change.
    pub partition_epoch: i32,
    /// Each replica's log directory id, as Kafka prints a `Uuid`.
    pub directories: Vec<String>,
    /// Eligible leader replicas (KIP-966).
    pub eligible_leader_replicas: Vec<i32>,
    /// Last known eligible leader replicas (KIP-966).
    pub last_known_elr: Vec<i32>,
}

#[cfg(test)]
impl PartitionImage {
    /// For tests: a partition of one replica, `leader`, in sync, at epoch 0.
    pub(crate) fn led_by(leader: i32) -> Self {
        Self {
            replicas: vec![leader],
            isr: vec![leader],
            removing_replicas: vec![],
            adding_replicas: vec![],
            leader,
            leader_recovery_state: 0,
            leader_epoch: 0,
            partition_epoch: 0,
            directories: vec![],
            eligible_leader_replicas: vec![],
            last_known_elr: vec![],
        }
    }
}

/// A topic (`TopicImage`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicImage {
    /// Its name.
    pub name: String,
    /// Its id, as Kafka prints a `Uuid` (base64url, no padding).
    pub id: String,
    /// Partitions by id.
    pub partitions: Partitions,
}

/// A topic's partitions by id, in id order: a vector, where each of the
/// usual ids `0..count` is found at its own index without a search.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Partitions(Vec<(i32, PartitionImage)>);

impl Partitions {
    /// Where partition `id` is, or where it would go.
    fn position(&self, id: i32) -> Result<usize, usize> {
        let own = usize::try_from(id).ok();
        match own.filter(|&at| self.0.get(at).is_some_and(|(held, _)| *held == id)) {
            Some(at) => Ok(at),
            None => self.0.binary_search_by_key(&id, |(held, _)| *held),
        }
    }

    /// Partition `id`.
    pub fn get(&self, id: i32) -> Option<&PartitionImage> {
        let at = self.position(id).ok()?;
        self.0.get(at).map(|(_, p)| p)
    }

    /// Partition `id`, to change.
    pub fn get_mut(&mut self, id: i32) -> Option<&mut PartitionImage> {
        let at = self.position(id).ok()?;
        self.0.get_mut(at).map(|(_, p)| p)
    }

    /// Puts in partition `id`, in place of one the id had.
    pub fn insert(&mut self, id: i32, partition: PartitionImage) {
        match self.position(id) {
            Ok(at) => {
                if let Some((_, held)) = self.0.get_mut(at) {
                    *held = partition;
                }
            }
            Err(at) => self.0.insert(at, (id, partition)),
        }
    }

    /// How many partitions there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The partitions with their ids, in id order.
    pub fn iter(&self) -> impl Iterator<Item = (i32, &PartitionImage)> {
        self.0.iter().map(|(id, p)| (*id, p))
    }

    /// The partitions, in id order.
    pub fn values(&self) -> impl Iterator<Item = &PartitionImage> {
        self.0.iter().map(|(_, p)| p)
    }

    /// The partitions, to change, in id order.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut PartitionImage> {
        self.0.iter_mut().map(|(_, p)| p)
    }
}

/// How many bytes of text a [`TopicKey`] holds in place (a topic id is 22).
const INLINE: usize = 30;

/// A topic id as [`Topics`] keys topics by it: its text (Kafka's
/// `Uuid.toString`) held in place, so a lookup compares bytes in the map's
/// own buckets; hashed and compared as the text's bytes.
#[derive(Clone)]
struct TopicKey(Text);

#[derive(Clone)]
enum Text {
    Inline(u8, [u8; INLINE]),
    Heap(Box<str>),
}

impl TopicKey {
    /// The id's text, as bytes.
    fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Text::Inline(len, bytes) => bytes.get(..usize::from(*len)).unwrap_or_default(),
            Text::Heap(text) => text.as_bytes(),
        }
    }
}

impl From<&str> for TopicKey {
    fn from(text: &str) -> Self {
        let mut bytes = [0; INLINE];
        match bytes.get_mut(..text.len()) {
            Some(to) => {
                to.copy_from_slice(text.as_bytes());
                Self(Text::Inline(text.len() as u8, bytes))
            }
            None => Self(Text::Heap(text.into())),
        }
    }
}

impl PartialEq for TopicKey {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for TopicKey {}

impl Hash for TopicKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state);
    }
}

impl std::fmt::Debug for TopicKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        String::from_utf8_lossy(self.as_bytes()).fmt(f)
    }
}

/// The image's topics by id, hashed; what lists them takes them in id
/// order ([`Topics::in_id_order`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Topics(HashMap<TopicKey, TopicImage>);

impl Topics {
    /// The topic of id `id`.
    pub fn get(&self, id: &str) -> Option<&TopicImage> {
        self.0.get(&TopicKey::from(id))
    }

    /// The topic of id `id`, to change.
    pub fn get_mut(&mut self, id: &str) -> Option<&mut TopicImage> {
        self.0.get_mut(&TopicKey::from(id))
    }

    /// Puts `topic` in under its id, in place of one the id had.
    pub fn insert(&mut self, topic: TopicImage) {
        self.0.insert(TopicKey::from(topic.id.as_str()), topic);
    }

    /// Takes out the topic of id `id`.
    pub fn remove(&mut self, id: &str) -> Option<TopicImage> {
        self.0.remove(&TopicKey::from(id))
    }

    /// How many topics there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The topics, by id (sorted at each call).
    pub fn in_id_order(&self) -> impl Iterator<Item = &TopicImage> {
        let mut topics: Vec<&TopicImage> = self.0.values().collect();
        topics.sort_unstable_by(|a, b| a.id.cmp(&b.id));
        topics.into_iter()
    }

    /// The topics, to change, in no particular order.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut TopicImage> {
        self.0.values_mut()
    }

    /// The topic named `name`; of several, the one first in id order.
    pub fn by_name(&self, name: &str) -> Option<&TopicImage> {
        self.0
            .values()
            .filter(|t| t.name == name)
            .min_by(|a, b| a.id.cmp(&b.id))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn topic(id: &str, name: &str) -> TopicImage {
        TopicImage {
            name: name.into(),
            id: id.into(),
            partitions: Default::default(),
        }
    }

    /// Topics list in id order whatever the order they came in; of two
    /// of one name, `by_name` finds the first in id order; an id longer
    /// than the inline text is found, replaced and removed alike.
    #[test]
    fn topics_list_in_id_order_and_find_by_id_or_name() {
        let long = "an-id-longer-than-thirty-bytes-of-text";
        let mut topics = Topics::default();
        for (id, name) in [("c", "x"), ("a", "y"), (long, "z"), ("b", "x")] {
            topics.insert(topic(id, name));
        }
        let ids: Vec<&str> = topics.in_id_order().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["a", long, "b", "c"]);
        assert_eq!(topics.by_name("x").unwrap().id, "b");
        assert!(topics.by_name("w").is_none());
        topics.insert(topic(long, "zz"));
        assert_eq!(topics.get(long).unwrap().name, "zz");
        assert_eq!(topics.len(), 4);
        assert_eq!(topics.remove(long).unwrap().name, "zz");
        assert!(topics.get(long).is_none() && topics.get_mut("a").is_some());
    }

    /// Partitions list in id order whatever the order they came in, ids
    /// past a gap and negative ones included; one put in again replaces
    /// the one there.
    #[test]
    fn partitions_list_in_id_order_and_find_by_id() {
        let mut partitions = Partitions::default();
        for id in [1, 0, 7, -3, 2, 5] {
            partitions.insert(id, PartitionImage::led_by(id));
        }
        partitions.insert(7, PartitionImage::led_by(70));
        let ids: Vec<i32> = partitions.iter().map(|(id, _)| id).collect();
        assert_eq!(ids, [-3, 0, 1, 2, 5, 7]);
        for id in ids {
            let leader = if id == 7 { 70 } else { id };
            assert_eq!(partitions.get(id).unwrap().leader, leader);
        }
        assert!(partitions.get(3).is_none() && partitions.get(-1).is_none());
        partitions.get_mut(5).unwrap().leader = 50;
        let leaders: Vec<i32> = partitions.values().map(|p| p.leader).collect();
        assert_eq!(leaders, [-3, 0, 1, 2, 50, 70]);
        assert_eq!(partitions.len(), 6);
    }
}
