// `bun run cluster start|stop|status|destroy`: a local three-node MariaDB Galera cluster on
// loopback, with its data in .data/cluster/. `start` prints each node's DATABASE_URL.
import path from "node:path";
import { LocalCluster } from "./lib/cluster.ts";

const root = path.resolve(import.meta.dir, "..");
const cluster = new LocalCluster(path.join(root, ".data", "cluster"));
const [command = "status"] = process.argv.slice(2);

switch (command) {
  case "start": {
    await cluster.start();
    const urls = cluster.urls("erp");
    console.log("Three nodes are synced. Start one server per node, e.g.:");
    for (const [i, url] of urls.entries())
      console.log(`  DATABASE_URL=${url} PORT=${3000 + i} bun run start`);
    break;
  }
  case "stop":
    await cluster.stop();
    console.log("stopped (data kept in .data/cluster; `bun run cluster destroy` deletes it)");
    break;
  case "destroy":
    await cluster.destroy();
    console.log("stopped and deleted .data/cluster");
    break;
  case "status": {
    const nodes = await cluster.status();
    if (nodes.length === 0) console.log("no cluster yet: bun run cluster start");
    for (const node of nodes) {
      console.log(
        `${node.name}  ` +
          `${node.running ? `${node.state ?? "not answering"}, cluster size ${node.clusterSize ?? "?"}` : "stopped"} ` +
          ` ${node.url}erp`,
      );
    }
    break;
  }
  default:
    console.error("usage: bun run cluster start|stop|status|destroy");
    process.exit(2);
}
