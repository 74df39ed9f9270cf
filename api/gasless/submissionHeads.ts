import { ChainHead } from "../../sdk/chain/chainHead";
import type { ChainContext } from "../chains/chainContext";

/**
 * One `ChainHead` per served chain for gasless submissions: concurrent submissions share the read of
 * the latest block in flight, and the next block's earliest timestamp comes from the cached clock
 * offset (`ChainClock`) instead of the pending block, which a node builds by executing its whole
 * mempool (under load, the most expensive read a submission could make).
 */
export class SubmissionHeads {
  readonly #heads = new Map<number, ChainHead>();

  for(chain: ChainContext): ChainHead {
    let head = this.#heads.get(chain.chainId);
    if (head === undefined) {
      head = new ChainHead(chain.client);
      this.#heads.set(chain.chainId, head);
    }
    return head;
  }
}
