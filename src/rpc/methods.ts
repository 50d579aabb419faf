import { transactionStatus } from './base/transactionStatus.ts'
import { getRawBlock } from './debug/getRawBlock.ts'
import { getRawHeader } from './debug/getRawHeader.ts'
import { getRawReceipts } from './debug/getRawReceipts.ts'
import { getRawTransaction } from './debug/getRawTransaction.ts'
import { traceBlockByHash } from './debug/traceBlockByHash.ts'
import { traceBlockByNumber } from './debug/traceBlockByNumber.ts'
import { traceCall } from './debug/traceCall.ts'
import { traceTransaction } from './debug/traceTransaction.ts'
import { accounts } from './eth/accounts.ts'
import { baseFee } from './eth/baseFee.ts'
import { blobBaseFee } from './eth/blobBaseFee.ts'
import { blockNumber } from './eth/blockNumber.ts'
import { call } from './eth/call.ts'
import { chainId } from './eth/chainId.ts'
import { config } from './eth/config.ts'
import { createAccessList } from './eth/createAccessList.ts'
import { estimateGas } from './eth/estimateGas.ts'
import { feeHistory } from './eth/feeHistory.ts'
import { gasPrice } from './eth/gasPrice.ts'
import { getBalance } from './eth/getBalance.ts'
import { getBlockByHash } from './eth/getBlockByHash.ts'
import { getBlockByNumber } from './eth/getBlockByNumber.ts'
import { getBlockReceipts } from './eth/getBlockReceipts.ts'
import { getBlockTransactionCountByHash } from './eth/getBlockTransactionCountByHash.ts'
import { getBlockTransactionCountByNumber } from './eth/getBlockTransactionCountByNumber.ts'
import { getCode } from './eth/getCode.ts'
import { getFilterChanges } from './eth/getFilterChanges.ts'
import { getFilterLogs } from './eth/getFilterLogs.ts'
import { getLogs } from './eth/getLogs.ts'
import { getProof } from './eth/getProof.ts'
import { getStorageAt } from './eth/getStorageAt.ts'
import { getStorageValues } from './eth/getStorageValues.ts'
import { getTransactionByBlockHashAndIndex } from './eth/getTransactionByBlockHashAndIndex.ts'
import { getTransactionByBlockNumberAndIndex } from './eth/getTransactionByBlockNumberAndIndex.ts'
import { getTransactionByHash } from './eth/getTransactionByHash.ts'
import { getTransactionCount } from './eth/getTransactionCount.ts'
import { getTransactionReceipt } from './eth/getTransactionReceipt.ts'
import { maxPriorityFeePerGas } from './eth/maxPriorityFeePerGas.ts'
import { newBlockFilter } from './eth/newBlockFilter.ts'
import { newFilter } from './eth/newFilter.ts'
import { newPendingTransactionFilter } from './eth/newPendingTransactionFilter.ts'
import { sendRawTransaction } from './eth/sendRawTransaction.ts'
import { sendRawTransactionSync } from './eth/sendRawTransactionSync.ts'
import { sendTransaction } from './eth/sendTransaction.ts'
import { subscribe } from './eth/subscribe.ts'
import { simulateV1 } from './eth/simulateV1.ts'
import { syncing } from './eth/syncing.ts'
import { capabilities } from './eth/capabilities.ts'
import { buildBlockV1 } from './testing/buildBlockV1.ts'
import { uninstallFilter } from './eth/uninstallFilter.ts'
import { unsubscribe } from './eth/unsubscribe.ts'
import { requestAccounts } from './eth/requestAccounts.ts'
import { anvilGetAutomine, hardhatGetAutomine } from './evm/getAutomine.ts'
import { increaseTime } from './evm/increaseTime.ts'
import { mine } from './evm/mine.ts'
import { anvilMine, hardhatMine } from './evm/mineBlocks.ts'
import { anvilSetAutomine, setAutomine } from './evm/setAutomine.ts'
import { anvilSetNextBlockTimestamp, setNextBlockTimestamp } from './evm/setNextBlockTimestamp.ts'
import { getAbi } from './flashchain/getAbi.ts'
import { getApprovalPolicy } from './flashchain/getApprovalPolicy.ts'
import { getBatches } from './flashchain/getBatches.ts'
import { followStatus } from './flashchain/followStatus.ts'
import { getFlashblocks } from './flashchain/getFlashblocks.ts'
import { getUnsentEdits } from './flashchain/getUnsentEdits.ts'
import { getGrants } from './flashchain/getGrants.ts'
import { getPendingApprovals } from './flashchain/getPendingApprovals.ts'
import { getWatchedAssets } from './flashchain/getWatchedAssets.ts'
import { preconfirm } from './flashchain/preconfirm.ts'
import { sendDeposit } from './flashchain/sendDeposit.ts'
import { setL1Values } from './flashchain/setL1Values.ts'
import { resolveApproval } from './flashchain/resolveApproval.ts'
import { revokeGrant } from './flashchain/revokeGrant.ts'
import { setAtomicStatus } from './flashchain/setAtomicStatus.ts'
import { personalSign } from './personal/sign.ts'
import { sign } from './eth/sign.ts'
import { signTransaction } from './eth/signTransaction.ts'
import { signTypedDataV4 } from './eth/signTypedDataV4.ts'
import { addEthereumChain } from './wallet/addEthereumChain.ts'
import { switchEthereumChain } from './wallet/switchEthereumChain.ts'
import { setApprovalPolicy } from './flashchain/setApprovalPolicy.ts'
import { version } from './net/version.ts'
import {
  anvilAutoImpersonateAccount,
  anvilImpersonateAccount,
  anvilStopImpersonatingAccount,
  hardhatImpersonateAccount,
  hardhatStopImpersonatingAccount,
} from './anvil/impersonateAccount.ts'
import { anvilDealERC20, anvilSetERC20Balance, hardhatDealERC20 } from './anvil/dealERC20.ts'
import { anvilSetERC20Allowance } from './anvil/setERC20Allowance.ts'
import { anvilDumpState, anvilLoadState, hardhatDumpState, hardhatLoadState } from './anvil/dumpState.ts'
import { anvilSetLoggingEnabled, anvilSetRpcUrl, hardhatSetLoggingEnabled, hardhatSetRpcUrl } from './anvil/node.ts'
import { sendUnsignedTransaction } from './eth/sendUnsignedTransaction.ts'
import { anvilMetadata, hardhatMetadata } from './anvil/metadata.ts'
import { nodeInfo } from './anvil/nodeInfo.ts'
import { anvilReset, hardhatReset } from './anvil/reset.ts'
import {
  anvilRemoveBlockTimestampInterval,
  anvilSetBlockTimestampInterval,
  hardhatRemoveBlockTimestampInterval,
  hardhatSetBlockTimestampInterval,
} from './anvil/blockTimestampInterval.ts'
import { anvilSetCoinbase, hardhatSetCoinbase } from './anvil/setCoinbase.ts'
import { anvilSetMinGasPrice, hardhatSetMinGasPrice } from './anvil/setMinGasPrice.ts'
import { anvilSetNextBlockBaseFeePerGas, hardhatSetNextBlockBaseFeePerGas } from './anvil/setNextBlockBaseFeePerGas.ts'
import { hardhatSetPrevRandao } from './anvil/setPrevRandao.ts'
import { setBlockGasLimit } from './evm/setBlockGasLimit.ts'
import { anvilSetIntervalMining, setIntervalMining } from './evm/setIntervalMining.ts'
import { anvilAddBalance, anvilSetBalance, hardhatSetBalance } from './anvil/setBalance.ts'
import { anvilSetCode, hardhatSetCode } from './anvil/setCode.ts'
import { anvilSetNonce, hardhatSetNonce } from './anvil/setNonce.ts'
import { anvilSetStorageAt, hardhatSetStorageAt } from './anvil/setStorageAt.ts'
import { anvilRevert, anvilSnapshot, revert, snapshot } from './evm/snapshot.ts'
import { content } from './txpool/content.ts'
import { contentFrom } from './txpool/contentFrom.ts'
import { anvilDropAllTransactions, anvilDropTransaction, hardhatDropTransaction } from './txpool/dropTransaction.ts'
import { inspect } from './txpool/inspect.ts'
import { status } from './txpool/status.ts'
import { getCallsStatus } from './wallet/getCallsStatus.ts'
import { getCapabilities } from './wallet/getCapabilities.ts'
import { getPermissions } from './wallet/getPermissions.ts'
import { requestPermissions } from './wallet/requestPermissions.ts'
import { revokePermissions } from './wallet/revokePermissions.ts'
import { sendCalls } from './wallet/sendCalls.ts'
import { showCallsStatus } from './wallet/showCallsStatus.ts'
import { watchAsset } from './wallet/watchAsset.ts'
import { clientVersion } from './web3/clientVersion.ts'

import type { EncodedJson } from '../runtime/encodedJson.ts'
import type { MethodSchema } from './method.ts'

/** Every method the endpoint answers. */
export const methods = [
  accounts,
  baseFee,
  blobBaseFee,
  blockNumber,
  call,
  chainId,
  config,
  createAccessList,
  estimateGas,
  feeHistory,
  gasPrice,
  getBalance,
  getBlockByHash,
  getBlockByNumber,
  getBlockReceipts,
  getBlockTransactionCountByHash,
  getBlockTransactionCountByNumber,
  getCode,
  getFilterChanges,
  getFilterLogs,
  getLogs,
  getProof,
  getStorageAt,
  getStorageValues,
  getTransactionByBlockHashAndIndex,
  getTransactionByBlockNumberAndIndex,
  getTransactionByHash,
  getTransactionCount,
  getTransactionReceipt,
  maxPriorityFeePerGas,
  newBlockFilter,
  newFilter,
  newPendingTransactionFilter,
  requestAccounts,
  sendRawTransaction,
  sendRawTransactionSync,
  sendTransaction,
  simulateV1,
  syncing,
  capabilities,
  buildBlockV1,
  subscribe,
  uninstallFilter,
  unsubscribe,
  mine,
  increaseTime,
  setNextBlockTimestamp,
  anvilSetNextBlockTimestamp,
  anvilMine,
  hardhatMine,
  setAutomine,
  anvilSetAutomine,
  hardhatGetAutomine,
  anvilGetAutomine,
  anvilSetBalance,
  hardhatSetBalance,
  anvilAddBalance,
  anvilSetCode,
  hardhatSetCode,
  anvilSetNonce,
  hardhatSetNonce,
  anvilSetStorageAt,
  hardhatSetStorageAt,
  snapshot,
  anvilSnapshot,
  revert,
  anvilRevert,
  anvilReset,
  hardhatReset,
  anvilImpersonateAccount,
  hardhatImpersonateAccount,
  anvilStopImpersonatingAccount,
  hardhatStopImpersonatingAccount,
  anvilAutoImpersonateAccount,
  setBlockGasLimit,
  anvilSetNextBlockBaseFeePerGas,
  hardhatSetNextBlockBaseFeePerGas,
  anvilSetCoinbase,
  hardhatSetCoinbase,
  hardhatSetPrevRandao,
  anvilSetMinGasPrice,
  hardhatSetMinGasPrice,
  anvilSetBlockTimestampInterval,
  hardhatSetBlockTimestampInterval,
  anvilRemoveBlockTimestampInterval,
  hardhatRemoveBlockTimestampInterval,
  setIntervalMining,
  anvilSetIntervalMining,
  anvilDealERC20,
  anvilSetERC20Balance,
  hardhatDealERC20,
  anvilSetERC20Allowance,
  anvilDumpState,
  hardhatDumpState,
  anvilLoadState,
  hardhatLoadState,
  anvilSetLoggingEnabled,
  hardhatSetLoggingEnabled,
  anvilSetRpcUrl,
  hardhatSetRpcUrl,
  sendUnsignedTransaction,
  nodeInfo,
  anvilMetadata,
  hardhatMetadata,
  getAbi,
  getApprovalPolicy,
  getBatches,
  getFlashblocks,
  getUnsentEdits,
  followStatus,
  getGrants,
  getPendingApprovals,
  getWatchedAssets,
  preconfirm,
  sendDeposit,
  setL1Values,
  resolveApproval,
  revokeGrant,
  setAtomicStatus,
  personalSign,
  sign,
  signTransaction,
  signTypedDataV4,
  addEthereumChain,
  switchEthereumChain,
  setApprovalPolicy,
  version,
  content,
  contentFrom,
  anvilDropTransaction,
  hardhatDropTransaction,
  anvilDropAllTransactions,
  inspect,
  status,
  getCallsStatus,
  getCapabilities,
  getPermissions,
  requestPermissions,
  revokePermissions,
  sendCalls,
  showCallsStatus,
  watchAsset,
  clientVersion,
  getRawBlock,
  getRawHeader,
  getRawReceipts,
  getRawTransaction,
  traceBlockByHash,
  traceBlockByNumber,
  traceCall,
  traceTransaction,
  transactionStatus,
] as const

/**
 * A result as a client receives it. An answer the node encoded where it was made (EncodedJson) arrives as the JSON it
 * holds: the value the method's other result type names (eth_call's Hex), or unknown where it has none (a trace).
 */
type Received<Result> = [Exclude<Result, EncodedJson>] extends [never] ? unknown : Exclude<Result, EncodedJson>

/**
 * Each method's wire params and result, by name: what `createFlashchain().request` and the console page's requests
 * are typed with.
 */
export type RpcSchema = {
  [M in (typeof methods)[number] as M['name']]: { params: MethodSchema<M>['params']; result: Received<MethodSchema<M>['result']> }
}
